import type { Route } from "./+types/v1";
import { handleApiV1 } from "~/.server/adapters/api-v1/handle";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";

/** /api/v1/*: the public API, authenticated by API key (never by cookie). */
export function loader({ request, context }: Route.LoaderArgs) {
  return handleApiV1(request, requestMeta(request, context));
}

// The caller's address (as Express resolved it) goes with the call: an activity row an API call writes keeps it (decision 155).
export function action({ request, context }: Route.ActionArgs) {
  return handleApiV1(request, requestMeta(request, context));
}
