import express, { Router } from "express";
import type { PaystackContext } from "./context";
import { payByControl, transactionView } from "./control";
import { escapeHtml, kes, page } from "./html";

const dateTime = (iso: string | null) => (iso ? escapeHtml(iso.replace("T", " ").replace(/\.\d{3}Z$/, " UTC")) : "—");

/**
 * The console (gated): transactions with their checkout links and buttons that pay them as the
 * checkout would, and the webhooks sent with their attempts, bytes and a resend button.
 */
export function consoleRouter(ctx: PaystackContext): Router {
  const router = Router({ caseSensitive: true });
  const base = ctx.options.publicPath;
  const forms = express.urlencoded({ extended: false, limit: "4kb" });

  router.get("/", (req, res) => {
    const notice = typeof req.query.notice === "string" ? req.query.notice.slice(0, 200) : "";
    const transactions = ctx.store
      .list()
      .slice(0, 200)
      .map((tx) => transactionView(ctx, tx));
    const txRows = transactions
      .map((tx) => {
        const payable = tx.status !== "success";
        const buttons = payable
          ? `<form method="post" action="${escapeHtml(`${base}/console/pay`)}"><input type="hidden" name="reference" value="${escapeHtml(tx.reference)}">` +
            ["success", "declined", "3ds"]
              .map((card) => `<button type="submit" class="secondary" name="card" value="${card}">Pay: ${card}</button> `)
              .join("") +
            `</form>`
          : "";
        return (
          `<tr><td><code>${escapeHtml(tx.reference)}</code><br><a href="${escapeHtml(tx.checkoutPath)}">checkout</a></td>` +
          `<td>${escapeHtml(kes(tx.amount, tx.currency))}<br><small>${escapeHtml(tx.email)}</small></td>` +
          `<td><span class="pill ${escapeHtml(tx.status)}">${escapeHtml(tx.status)}</span><br><small>${escapeHtml(tx.gatewayResponse)}</small></td>` +
          `<td>${dateTime(tx.createdAt)}<br><small>paid ${dateTime(tx.paidAt)}</small></td><td>${buttons}</td></tr>`
        );
      })
      .join("");
    const hooks = ctx.sender.list().reverse().slice(0, 200);
    const hookRows = hooks
      .map(
        (hook) =>
          `<tr><td>${hook.index}${hook.resendOf === undefined ? "" : `<br><small>resend of ${hook.resendOf}</small>`}</td>` +
          `<td><code>${escapeHtml(hook.event)}</code><br><code>${escapeHtml(hook.reference)}</code></td>` +
          `<td><span class="pill ${escapeHtml(hook.state)}">${escapeHtml(hook.state)}</span><br><small>${hook.attempts
            .map((a) => escapeHtml(a.status !== undefined ? `HTTP ${a.status}` : (a.error ?? "")))
            .join(", ")}</small></td>` +
          `<td><details><summary>body</summary><pre>${escapeHtml(hook.body)}</pre><small>x-paystack-signature: <code>${escapeHtml(hook.signature)}</code></small></details></td>` +
          `<td><form method="post" action="${escapeHtml(`${base}/console/webhooks/${hook.index}/resend`)}"><button type="submit" class="secondary">Resend</button></form></td></tr>`,
      )
      .join("");
    page(res, {
      title: "Paystack sandbox",
      width: 1100,
      body:
        `<main><p class="brand">paystack · sandbox</p><h1>Paystack sandbox</h1>` +
        (notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : "") +
        `<p class="muted">Card payments in KES through the hosted checkout. Transactions live in memory only. JSON: <code>${escapeHtml(base)}/control/transactions</code>, <code>${escapeHtml(base)}/control/webhooks</code>.</p>` +
        `<section class="card"><h2>Transactions</h2>${
          transactions.length
            ? `<table><thead><tr><th scope="col">Reference</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">When</th><th scope="col">Pay as the checkout would</th></tr></thead><tbody>${txRows}</tbody></table>`
            : `<p>None yet: start a card top-up in Jumbe.</p>`
        }</section>` +
        `<section class="card"><h2>Webhooks sent</h2>${
          hooks.length
            ? `<table><thead><tr><th scope="col">#</th><th scope="col">Event</th><th scope="col">Delivery</th><th scope="col">Bytes</th><th scope="col"></th></tr></thead><tbody>${hookRows}</tbody></table>`
            : `<p>None yet.</p>`
        }</section></main>`,
    });
  });

  router.post("/console/pay", forms, (req, res) => {
    const form = (req.body ?? {}) as Record<string, unknown>;
    const answer = payByControl(ctx, String(form.reference ?? ""), { card: form.card });
    const message =
      answer.status === 200
        ? `Paid ${String(form.reference)} with the ${String(form.card)} card.`
        : String(answer.body.message ?? "Refused.");
    res.redirect(303, `${base}?notice=${encodeURIComponent(message)}`);
  });

  router.post("/console/webhooks/:index/resend", (req, res) => {
    const index = String(req.params.index);
    const record = /^\d{1,9}$/.test(index) ? ctx.sender.resend(Number(index)) : undefined;
    res.redirect(
      303,
      `${base}?notice=${encodeURIComponent(record ? `Webhook ${index} sent again as ${record.index}.` : `No webhook ${index}.`)}`,
    );
  });

  return router;
}
