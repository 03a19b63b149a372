import type { Route } from "./+types/v1";
import { answerApiV1 } from "~/.server/adapters/api-v1/serve";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";

/**
 * /api/v1/*: the public API, authenticated by API key (never by cookie). The built server answers it
 * before React Router (server.ts, decision 187); this route answers it in development (so edits
 * reload) and to tests that send requests to React Router itself. Both call answerApiV1.
 */
export function loader({ request, context }: Route.LoaderArgs) {
  return answerApiV1(request, requestMeta(request, context));
}

// The caller's address (as Express resolved it) goes with the call: an activity row an API call writes keeps it (decision 155).
export function action({ request, context }: Route.ActionArgs) {
  return answerApiV1(request, requestMeta(request, context));
}
