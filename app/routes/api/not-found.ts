import { jsonError, STATUS_MESSAGES } from "~/.server/infrastructure/http/json";

export async function loader() {
  return jsonError(404, STATUS_MESSAGES[404]);
}

export async function action() {
  return jsonError(404, STATUS_MESSAGES[404]);
}
