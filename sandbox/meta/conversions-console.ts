import { Router, type Request, type Response } from "express";
import type { SandboxContext } from "./context";
import { brand, page } from "./html";
import { escapeHtml } from "./util";

/**
 * The conversion events the business sent to the Conversions API (datasets.ts), newest first: what
 * Meta would attribute to the ad the customer came from (its click id), and the value of a purchase.
 */
const SHOW = 200;

export function conversionsConsoleRouter(ctx: SandboxContext): Router {
  const router = Router({ caseSensitive: true });
  router.get("/console/conversions", (req: Request, res: Response) => renderConversions(ctx, res));
  return router;
}

function renderConversions(ctx: SandboxContext, res: Response) {
  const base = escapeHtml(ctx.options.publicPath);
  const rows = ctx.datasets
    .receivedEvents()
    .slice(-SHOW)
    .reverse()
    .map(
      (e) =>
        `<tr data-event="${escapeHtml(e.eventName)}"><td>${escapeHtml(e.eventName)}</td><td><code>${escapeHtml(e.ctwaClid)}</code></td>` +
        `<td>${e.value === null ? "" : escapeHtml(String(e.value))}</td><td>${escapeHtml(e.currency ?? "")}</td>` +
        `<td>${escapeHtml(new Date(e.eventTime * 1000).toISOString())}</td><td><code>${escapeHtml(e.eventId ?? "")}</code></td>` +
        `<td>${escapeHtml(e.datasetId)}<br><small>WABA ${escapeHtml(e.wabaId)}</small></td></tr>`,
    )
    .join("");
  page(res, {
    title: "Meta sandbox · conversion events",
    width: 1100,
    body:
      `<main>${brand}<h1>Conversion events received</h1><p><a href="${base}">Back to the console</a></p>` +
      (rows
        ? `<table><thead><tr><th>Event</th><th>ctwa_clid</th><th>Value</th><th>Currency</th><th>Event time</th><th>event_id</th><th>Dataset</th></tr></thead><tbody>${rows}</tbody></table>`
        : `<p class="muted">No conversion events yet: a customer from an ad who pays, or "Mark as converted" in Jumbe's inbox, sends one.</p>`) +
      `</main>`,
  });
}
