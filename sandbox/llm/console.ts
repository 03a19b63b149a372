import { Router } from "express";
import { HANDOVER_TOOL, MAGIC, NO_ANSWER_TEXT } from "./answer";
import { INVALID_API_KEY, OVERLOADED_RETRY_AFTER_SECONDS, RATE_LIMIT_RETRY_AFTER_SECONDS } from "./api";
import type { LlmContext } from "./context";
import { resetLog } from "./control";
import { escapeHtml, page } from "./html";
import type { RequestRecord } from "./records";

const MAGIC_WORDS: Record<keyof typeof MAGIC, string> = {
  "magic:429": `429 rate_limit_exceeded, retry-after ${RATE_LIMIT_RETRY_AFTER_SECONDS}`,
  "magic:quota": "429 insufficient_quota (no retry-after)",
  "magic:500": "500 server_error",
  "magic:timeout": "no answer: held until the client gives up",
  "magic:filter": 'finish_reason "content_filter", content null',
  "magic:503": `503 overloaded, retry-after ${OVERLOADED_RETRY_AFTER_SECONDS}`,
  "magic:error-body": "200 with an error body and no choices",
  "magic:no-usage": "the usual answer, without usage",
};

function pillOf(record: RequestRecord) {
  const kind =
    record.status === null
      ? "wait"
      : record.outcome === "handover" || record.outcome === "no_answer"
        ? "tool"
        : record.status === 200 && record.outcome !== "filtered"
          ? "ok"
          : "bad";
  return `<span class="pill ${kind}">${escapeHtml(record.outcome)}</span>`;
}

const when = (iso: string) => escapeHtml(iso.replace("T", " ").replace(/\.\d{3}Z$/, " UTC"));

/** The console (gated): the requests received, the magic values, a reset. Server-rendered, no JavaScript. */
export function consoleRouter(ctx: LlmContext): Router {
  const router = Router({ caseSensitive: true });
  const base = ctx.options.publicPath;

  router.get("/", (req, res) => {
    const notice = typeof req.query.notice === "string" ? req.query.notice.slice(0, 200) : "";
    const requests = ctx.log.list();
    const rows = requests
      .map(
        (r) =>
          `<tr><td>${r.index}</td><td>${when(r.at)}</td><td><code>${escapeHtml(r.model ?? "—")}</code></td>` +
          `<td class="text">${escapeHtml(r.lastUserMessage ?? "—")}</td><td>${pillOf(r)}</td>` +
          `<td>${r.status ?? "held"}</td><td>${r.detail === null ? "" : `<code>${escapeHtml(r.detail)}</code>`}</td>` +
          `<td>${r.promptTokens} + ${r.completionTokens}</td></tr>`,
      )
      .join("");
    const magicRows = Object.entries(MAGIC_WORDS)
      .map(([value, words]) => `<tr><td><code>${escapeHtml(value)}</code></td><td>${escapeHtml(words)}</td></tr>`)
      .join("");
    page(res, {
      title: "Model sandbox",
      body:
        `<main><p class="brand">OpenAI-compatible model · sandbox</p><h1>Model sandbox</h1>` +
        (notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : "") +
        `<p class="muted">Chat Completions at <code>${escapeHtml(base)}/v1/chat/completions</code> (base URL <code>${escapeHtml(base)}/v1</code>), ` +
        `model ${ctx.options.models.map((m) => `<code>${escapeHtml(m)}</code>`).join(", ")}, any API key but <code>${INVALID_API_KEY}</code>. ` +
        `It answers with the knowledge passage (system lines <code>[K&lt;n&gt;] …</code>) that shares most words with the last user message; ` +
        `asking for a person, or a question nothing answers, calls the <code>${HANDOVER_TOOL}</code> tool when it is offered (otherwise: “${escapeHtml(NO_ANSWER_TEXT)}”). ` +
        `The last ${ctx.options.recordLimit} requests are kept in memory. JSON: <code>${escapeHtml(base)}/control/requests</code>.</p>` +
        `<section class="card"><h2>Requests</h2>${
          requests.length
            ? `<table><thead><tr><th scope="col">#</th><th scope="col">When</th><th scope="col">Model</th><th scope="col">Last user message</th><th scope="col">Outcome</th><th scope="col">HTTP</th><th scope="col">Detail</th><th scope="col">Tokens (prompt + completion)</th></tr></thead><tbody>${rows}</tbody></table>`
            : `<p>None yet.</p>`
        }` +
        `<form method="post" action="${escapeHtml(`${base}/console/reset`)}"><button type="submit">Forget these requests</button></form></section>` +
        `<section class="card"><h2>Magic values</h2><p class="muted">In the last user message, any case.</p>` +
        `<table><thead><tr><th scope="col">Message contains</th><th scope="col">Answer</th></tr></thead><tbody>${magicRows}</tbody></table></section></main>`,
    });
  });

  router.post("/console/reset", (_req, res) => {
    resetLog(ctx);
    res.redirect(303, `${base}?notice=${encodeURIComponent("The requests were forgotten.")}`);
  });

  return router;
}
