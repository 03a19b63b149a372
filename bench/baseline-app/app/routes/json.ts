import type { LoaderFunctionArgs } from "react-router";
import { bytesFrom } from "./kb";

export function loader({ request }: LoaderFunctionArgs) {
  const body = {
    user: { id: "usr_baseline", email: "baseline@example.com", name: "Baseline", role: "user" },
    organisation: { id: "org_baseline", name: "Baseline" },
  };
  const pad = Math.max(bytesFrom(request) - JSON.stringify(body).length - ',"padding":""'.length, 0);
  return Response.json(pad ? { ...body, padding: "z".repeat(pad) } : body);
}
