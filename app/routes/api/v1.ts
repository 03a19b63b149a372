import type { Route } from "./+types/v1";
import { handleApiV1 } from "~/.server/adapters/api-v1/handle";

/** /api/v1/*: the public API, authenticated by API key (never by cookie). */
export function loader({ request }: Route.LoaderArgs) {
  return handleApiV1(request);
}

export function action({ request }: Route.ActionArgs) {
  return handleApiV1(request);
}
