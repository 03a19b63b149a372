import type { Route } from "./+types/metrics";
import { metricsTokenMatches, prometheusText } from "~/.server/domains/admin/system/prometheus";

/**
 * GET /metrics: Prometheus's text format (prom-client) for operators who already run Prometheus.
 * `Authorization: Bearer <METRICS_TOKEN>`; anything else (no token, a wrong one, none configured) is 401.
 */
export async function loader({ request }: Route.LoaderArgs) {
  if (!metricsTokenMatches(request.headers.get("authorization")))
    return new Response("Unauthorized: send Authorization: Bearer <METRICS_TOKEN>.\n", {
      status: 401,
      headers: { "Content-Type": "text/plain; charset=utf-8", "WWW-Authenticate": 'Bearer realm="metrics"', "Cache-Control": "no-store" },
    });
  const { contentType, text } = await prometheusText();
  return new Response(text, { headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
}
