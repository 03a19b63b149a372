import express, { Router } from "express";
import { backWithNotice, escapeHtml, noticeOf, page, when } from "../console-page";
import { incomingAction, optOutAction } from "./actions";
import type { AfricastalkingContext } from "./context";
import { kesString } from "./state";

/** Numbers the phone picker offers: a Safaricom, an Airtel and a Telkom line. */
export const CONSOLE_PHONES = ["+254712345678", "+254733123456", "+254770123456"];
const ACCENT = "#e35205";

const option = (value: string, label = value) => `<option value="${escapeHtml(value)}">${escapeHtml(label)}</option>`;

function phoneSection(ctx: AfricastalkingContext, base: string) {
  const accounts = [...ctx.state.accounts.values()];
  const shortcodes = accounts.flatMap((a) => a.shortcodes.map((code) => ({ code, username: a.username })));
  const senders = accounts.flatMap((a) => [...a.senderIds, ...a.shortcodes].map((s) => ({ s, username: a.username })));
  const phones = CONSOLE_PHONES.map((n) => option(n)).join("");
  const sms = shortcodes.length
    ? `<form method="post" action="${escapeHtml(`${base}/console/incoming`)}">
<label for="in-from">From (the tester's phone)</label><select id="in-from" name="from">${phones}</select>
<label for="in-other">Or another number</label><input type="tel" id="in-other" name="other" placeholder="+2547…" autocomplete="off">
<label for="in-to">To (shortcode)</label><select id="in-to" name="to">${shortcodes.map((s) => option(s.code, `${s.code} (${s.username})`)).join("")}</select>
<label for="in-text">Message</label><textarea id="in-text" name="text" rows="3" maxlength="1600" required></textarea>
<div class="actions"><button type="submit">Send SMS</button></div></form>`
    : `<p>No account has a shortcode.</p>`;
  const stop = senders.length
    ? `<form method="post" action="${escapeHtml(`${base}/console/opt-out`)}">
<label for="out-phone">Phone</label><select id="out-phone" name="phoneNumber">${phones}</select>
<label for="out-other">Or another number</label><input type="tel" id="out-other" name="other" placeholder="+2547…" autocomplete="off">
<label for="out-sender">Sender ID</label><select id="out-sender" name="senderId">${senders.map((s) => option(s.s, `${s.s} (${s.username})`)).join("")}</select>
<div class="actions"><button type="submit" class="secondary">Opt out</button></div></form>`
    : "";
  return (
    `<section class="card" aria-labelledby="h-phone"><h2 id="h-phone">Phone</h2>${sms}</section>` +
    (stop ? `<section class="card" aria-labelledby="h-stop"><h2 id="h-stop">Opt out of a sender</h2>${stop}</section>` : "")
  );
}

function sentSection(ctx: AfricastalkingContext) {
  const rows = ctx.state.sent
    .slice(-100)
    .reverse()
    .map((m) => {
      const recipients = m.recipients
        .map(
          (r) =>
            `<li><code>${escapeHtml(r.number)}</code> ${r.statusCode} ${escapeHtml(r.status)}${r.cost !== "0" ? ` · ${escapeHtml(r.cost)}` : ""}` +
            (r.reported ? ` · report <span class="pill">${escapeHtml(r.reported)}</span>` : "") +
            `<br><small><code>${escapeHtml(r.messageId)}</code></small></li>`,
        )
        .join("");
      return `<tr><td>${when(m.at)}<br><small>${escapeHtml(m.username)} · from ${escapeHtml(m.from)}</small></td><td>${escapeHtml(m.message)}<br><small>${escapeHtml(m.encoding)}, ${m.parts} part(s)${m.enqueue ? ", enqueued" : ""}</small></td><td><ul>${recipients}</ul></td></tr>`;
    })
    .join("");
  return `<section class="card" aria-labelledby="h-sent"><h2 id="h-sent">SMS sent</h2>${
    rows
      ? `<div class="scroll"><table><thead><tr><th scope="col">When</th><th scope="col">Message</th><th scope="col">Recipients</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : "<p>None yet.</p>"
  }</section>`;
}

function callbackSection(ctx: AfricastalkingContext, base: string) {
  const chaos = ctx.sender.chaos;
  const rows = ctx.sender
    .list()
    .slice(-100)
    .reverse()
    .map(
      (c) =>
        `<tr><td>${c.index}${c.copyOf === undefined ? "" : `<br><small>copy of ${c.copyOf}</small>`}</td><td>${escapeHtml(c.kind)}${c.status ? `<br><small>${escapeHtml(c.status)}${c.late ? " (late)" : ""}</small>` : ""}</td>` +
        `<td><span class="pill ${escapeHtml(c.state)}">${escapeHtml(c.state)}</span><br><small>${c.attempts.map((a) => escapeHtml(a.status !== undefined ? `HTTP ${a.status}` : (a.error ?? ""))).join(", ")}</small></td>` +
        `<td><details><summary>body</summary><pre>${escapeHtml(c.body)}</pre><small>${escapeHtml(c.url ?? "no URL")}</small></details></td></tr>`,
    )
    .join("");
  return `<section class="card" aria-labelledby="h-callbacks"><h2 id="h-callbacks">Callbacks (delivery reports, incoming, opt-outs)</h2>
<form method="post" action="${escapeHtml(`${base}/console/flush`)}"><button type="submit" class="secondary">Send pending now (late reports too)</button></form>${
    rows
      ? `<div class="scroll"><table><thead><tr><th scope="col">#</th><th scope="col">Kind</th><th scope="col">Delivery</th><th scope="col">Form body</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : "<p>None yet.</p>"
  }</section>
<section class="card" aria-labelledby="h-chaos"><h2 id="h-chaos">Delivery chaos</h2><form method="post" action="${escapeHtml(`${base}/console/chaos`)}">
<label for="c-dup">Extra copies of each callback</label><input type="number" id="c-dup" name="duplicate" min="0" max="5" value="${chaos.duplicate}">
<label class="choice"><input type="checkbox" name="reorder"${chaos.reorder ? " checked" : ""}> Reorder: a message's reports newest first</label>
<div class="actions"><button type="submit" class="secondary">Set chaos</button></div></form></section>`;
}

/** The console (gated): a phone that texts a shortcode or opts out, the SMS sent with their reports, the callbacks. */
export function consoleRouter(ctx: AfricastalkingContext): Router {
  const router = Router({ caseSensitive: true });
  const base = ctx.options.publicPath;
  const forms = express.urlencoded({ extended: false, limit: "8kb" });
  const form = (body: unknown) => (body && typeof body === "object" ? (body as Record<string, unknown>) : {});
  const other = (f: Record<string, unknown>, name: string) =>
    typeof f.other === "string" && f.other.trim() !== "" ? { ...f, [name]: f.other.trim() } : f;

  router.get("/", (req, res) => {
    const notice = noticeOf(req.query as Record<string, unknown>);
    const accounts = [...ctx.state.accounts.values()]
      .map(
        (a) =>
          `<li><strong>${escapeHtml(a.username)}</strong> · ${escapeHtml(kesString(a.balance))}<br><small>senders ${escapeHtml([...a.senderIds, ...a.shortcodes].join(", ") || "none")} · reports to ${escapeHtml(a.deliveryReportUrl ?? "nowhere")}</small></li>`,
      )
      .join("");
    page(res, {
      title: "Africa's Talking sandbox",
      accent: ACCENT,
      width: 1000,
      body:
        `<style nonce="${escapeHtml(String(res.locals.cspNonce ?? ""))}">.scroll{overflow-x:auto}ul{padding-left:1.1rem;margin:0}</style>` +
        `<main><p class="brand">africa's talking · sandbox</p><h1>Africa's Talking SMS sandbox</h1>` +
        (notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : "") +
        `<p class="muted">Bulk SMS in KES, delivery reports, incoming SMS to shortcodes. State lives in memory. JSON: <code>${escapeHtml(base)}/control/messages</code>, <code>${escapeHtml(base)}/control/callbacks</code>.</p>` +
        `<section class="card" aria-labelledby="h-accounts"><h2 id="h-accounts">Accounts</h2>${accounts ? `<ul>${accounts}</ul>` : "<p>None.</p>"}</section>` +
        phoneSection(ctx, base) +
        sentSection(ctx) +
        callbackSection(ctx, base) +
        `</main>`,
    });
  });

  router.post("/console/incoming", forms, (req, res) => {
    const outcome = incomingAction(ctx, other(form(req.body), "from"));
    backWithNotice(res, base, outcome.message);
  });
  router.post("/console/opt-out", forms, (req, res) => {
    const outcome = optOutAction(ctx, other(form(req.body), "phoneNumber"));
    backWithNotice(res, base, outcome.message);
  });
  router.post("/console/chaos", forms, (req, res) => {
    const f = form(req.body);
    const duplicate = Number(f.duplicate ?? 0);
    if (!Number.isInteger(duplicate) || duplicate < 0 || duplicate > 5) return backWithNotice(res, base, "Extra copies must be 0 to 5.");
    ctx.sender.chaos = { duplicate, reorder: f.reorder === "on" };
    backWithNotice(
      res,
      base,
      `Chaos: ${duplicate} extra cop${duplicate === 1 ? "y" : "ies"}, reorder ${f.reorder === "on" ? "on" : "off"}.`,
    );
  });
  router.post("/console/flush", async (_req, res) => {
    await ctx.sender.flush();
    backWithNotice(res, base, "Every pending callback was sent.");
  });
  return router;
}
