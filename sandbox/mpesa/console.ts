import express, { Router, type Request, type Response } from "express";
import type { MpesaContext } from "./context";
import { c2bInput, outcomeOf, planInput } from "./control";
import { brand, escapeHtml, flash, nairobiTime, page } from "./html";
import { MAGIC_AMOUNTS } from "./payouts";
import { EMPTY_ACCOUNT_PIN, MAGIC_PHONES, planFrom, WRONG_PIN } from "./prompts";
import { DELIVERIES, OUTCOMES, type C2bResult, type CallbackRecord, type Outcome, type Prompt } from "./types";

const SHOW = 50;

const OUTCOME_LABELS: Record<Outcome, string> = {
  accept: "Pay (0)",
  cancel: "Cancel (1032)",
  timeout: "Time out (1037)",
  wrong_pin: "Wrong PIN (2001)",
  insufficient_funds: "No funds (1)",
  push_failed: "Push not delivered (1025)",
  not_permitted: "Not permitted for this shortcode (2028)",
};

const field = (body: Record<string, unknown>, key: string) => (typeof body[key] === "string" ? (body[key] as string).trim() : "");
const kes = (amount: number) => `KES ${amount.toLocaleString("en-KE")}`;

function pill(value: string, kind: "ok" | "bad" | "wait" | "" = "") {
  return `<span class="pill ${kind}">${escapeHtml(value)}</span>`;
}

function resultPill(prompt: Prompt) {
  if (prompt.state === "pending") return pill("pending", "wait");
  return pill(`${prompt.resultCode} ${prompt.outcome}`, prompt.resultCode === 0 ? "ok" : "bad");
}

function statusPill(record: CallbackRecord) {
  if (record.lost) return pill("lost", "bad");
  if (record.status === null) return pill(record.error ? "unreachable" : "—", "bad");
  return pill(String(record.status), record.status >= 200 && record.status < 300 ? "ok" : "bad");
}

/** What a C2B simulation did, in a sentence for the console's notice. */
export function c2bSummary(result: C2bResult) {
  const confirmations = result.confirmations.map((c) => c.status ?? c.error ?? "no answer").join(", ");
  switch (result.outcome) {
    case "completed":
      return `Paid ${result.payload.TransAmount} (${result.transId}): validation ${result.validation.called ? result.validation.result : "not called"}; confirmation answered ${confirmations}.`;
    case "rejected":
      return `Validation rejected ${result.transId} (ResultCode ${result.validation.called ? result.validation.resultCode : "?"}); no confirmation sent.`;
    case "cancelled":
      return `Validation unreachable and ResponseType is Cancelled: ${result.transId} was not completed.`;
    default:
      return result.validation.called ? "Nothing happened." : result.validation.reason;
  }
}

/** The console (`/`) and the customer's phone (`/phone`): HTML pages with forms that work without JavaScript. */
export function consoleRouter(ctx: MpesaContext): Router {
  const router = Router({ caseSensitive: true });
  const form = express.urlencoded({ extended: false, limit: "16kb" });
  const base = ctx.options.publicPath;
  const { sandbox } = ctx;

  const back = (res: Response, to: string, outcome: { notice?: string; error?: string }) => {
    const query = new URLSearchParams(outcome.error ? { error: outcome.error } : { notice: outcome.notice ?? "Done." });
    res.redirect(303, `${to}${to.includes("?") ? "&" : "?"}${query.toString()}`);
  };
  const action =
    (handler: (body: Record<string, unknown>, req: Request) => Promise<string> | string) => async (req: Request, res: Response) => {
      try {
        back(res, base, { notice: await handler((req.body ?? {}) as Record<string, unknown>, req) });
      } catch (error) {
        if (!(error instanceof Error)) throw error;
        back(res, base, { error: error.message });
      }
    };

  router.get("/", (req, res) => renderConsole(ctx, req, res));
  router.get("/phone", (req, res) => renderPhone(ctx, req, res));

  router.post(
    "/console/prompts/:id",
    form,
    action((b, req) => {
      const id = String(req.params.id);
      const outcome = outcomeOf(field(b, "outcome"));
      const plan = planInput({
        ...(field(b, "delivery") ? { delivery: field(b, "delivery") } : {}),
        ...(field(b, "delayMs") ? { delayMs: field(b, "delayMs") } : {}),
      });
      const prompt = sandbox.prompt(id);
      if (!prompt) throw new Error(`No STK prompt ${id}.`);
      if (prompt.state !== "pending") throw new Error(`STK prompt ${id} was already answered (${prompt.outcome}).`);
      planFrom(plan, prompt.plan); // a bad plan is refused here, not lost in the background
      sandbox.answer(id, outcome, plan).catch(() => {});
      return `${id}: ${OUTCOME_LABELS[outcome]}; the callback follows (${prompt.plan.delivery}).`;
    }),
  );
  router.post(
    "/console/c2b",
    form,
    action(async (b) => {
      const result = await sandbox.simulateC2b(
        c2bInput({
          msisdn: field(b, "msisdn"),
          amount: field(b, "amount"),
          billRefNumber: field(b, "billRefNumber"),
          msisdnFormat: field(b, "msisdnFormat") || "plain",
        }),
      );
      return c2bSummary(result);
    }),
  );
  router.post(
    "/console/chaos",
    form,
    action((b) => {
      const plan = sandbox.setDefaultDelivery(
        planInput({ delivery: field(b, "delivery") || "normal", ...(field(b, "delayMs") ? { delayMs: field(b, "delayMs") } : {}) }),
      );
      return `New prompts' callbacks: ${plan.delivery}${plan.delayMs ? ` (+${plan.delayMs} ms)` : ""}.`;
    }),
  );
  router.post(
    "/console/reset",
    form,
    action(() => {
      sandbox.reset();
      return "The M-Pesa sandbox was reset: no prompts, callbacks, registrations or tokens.";
    }),
  );

  router.post("/phone/:id", form, async (req, res) => {
    const id = String(req.params.id);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const prompt = sandbox.prompt(id);
    const to = prompt ? `${base}/phone?phone=${prompt.phone}` : `${base}/phone`;
    if (!prompt) return back(res, to, { error: "That M-Pesa prompt is gone." });
    let outcome: Outcome;
    if (field(body, "action") === "cancel") outcome = "cancel";
    else {
      const pin = field(body, "pin");
      if (!/^\d{4}$/.test(pin))
        return renderPhone(ctx, req, res, { phone: prompt.phone, error: "Enter your 4-digit M-Pesa PIN.", status: 400 });
      outcome = pin === WRONG_PIN ? "wrong_pin" : pin === EMPTY_ACCOUNT_PIN ? "insufficient_funds" : "accept";
    }
    if (prompt.state !== "pending") return back(res, to, { error: `That prompt was already answered (${prompt.outcome}).` });
    // The prompt is answered at once; its callback follows after the sandbox's delay.
    sandbox.answer(id, outcome).catch(() => {});
    back(res, to, { notice: phoneNotice(prompt) });
  });
  return router;
}

/** What the customer's phone shows after answering, like M-Pesa's SMS. */
function phoneNotice(prompt: Prompt) {
  if (prompt.resultCode === 0)
    return `${prompt.receipt} Confirmed. ${kes(prompt.amount)} sent to ${prompt.shortcode} (${prompt.payee}) for account ${prompt.accountReference}.`;
  if (prompt.outcome === "cancel") return "You cancelled the payment.";
  if (prompt.outcome === "wrong_pin") return "Wrong PIN: the payment failed (2001).";
  if (prompt.outcome === "insufficient_funds") return "Failed: insufficient funds in your M-Pesa account (1).";
  return `The prompt ended: ${prompt.resultDesc ?? ""}`;
}

function renderPhone(ctx: MpesaContext, req: Request, res: Response, override: { phone?: string; error?: string; status?: number } = {}) {
  const base = ctx.options.publicPath;
  const query = req.query as Record<string, unknown>;
  const only = override.phone ?? (typeof query.phone === "string" && /^254[17]\d{8}$/.test(query.phone) ? query.phone : undefined);
  const pending = ctx.sandbox.prompts().filter((p) => !only || p.phone === only);
  const phones = [...new Set(pending.map((p) => p.phone))];
  const recent = only
    ? ctx.sandbox
        .allPrompts()
        .filter((p) => p.phone === only && p.state === "done")
        .slice(0, 5)
    : [];
  const prompts = phones
    .map(
      (phone) =>
        `<section class="phone" aria-label="Phone ${escapeHtml(phone)}"><p class="muted">📱 ${escapeHtml(phone)}</p>` +
        pending
          .filter((p) => p.phone === phone)
          .map(
            (p) =>
              `<form method="post" action="${escapeHtml(`${base}/phone/${p.CheckoutRequestID}`)}">` +
              `<p class="sim">Do you want to pay ${escapeHtml(kes(p.amount))} to ${escapeHtml(p.shortcode)} for account ${escapeHtml(p.accountReference)}?</p>` +
              `<p class="muted">For: ${escapeHtml(p.payee)}</p>` +
              `<label for="pin-${escapeHtml(p.CheckoutRequestID)}">Enter M-PESA PIN</label>` +
              `<input type="password" inputmode="numeric" autocomplete="off" pattern="[0-9]{4}" maxlength="4" id="pin-${escapeHtml(p.CheckoutRequestID)}" name="pin">` +
              `<div class="actions"><button type="submit" name="action" value="pay">Send</button>` +
              `<button type="submit" name="action" value="cancel" class="secondary" formnovalidate>Cancel</button></div></form>`,
          )
          .join("") +
        `</section>`,
    )
    .join("");
  const history = recent.length
    ? `<section class="card"><h2>Earlier prompts on ${escapeHtml(only!)}</h2><ul>${recent.map((p) => `<li>${escapeHtml(kes(p.amount))} · ${escapeHtml(p.accountReference)} · ${resultPill(p)}</li>`).join("")}</ul></section>`
    : "";
  page(res, {
    title: "Phone · M-Pesa sandbox",
    status: override.status,
    // While nothing is waiting, look again every few seconds; never while a PIN is being typed.
    refreshSeconds: pending.length ? undefined : 3,
    body:
      `<main>${brand}<h1>The customer's phone</h1>` +
      flash(query) +
      (override.error ? `<p class="error" role="alert">${escapeHtml(override.error)}</p>` : "") +
      `<p class="muted">Each STK push shows up here as the M-Pesa prompt. Any 4-digit PIN pays, except <code>${WRONG_PIN}</code> (wrong PIN, 2001) and <code>${EMPTY_ACCOUNT_PIN}</code> (insufficient funds, 1). Cancel answers 1032; a prompt left alone ends as 1037 after ${Math.round(ctx.options.promptTimeoutMs / 1000)} s.</p>` +
      (prompts ||
        `<section class="card"><p>No M-Pesa prompt${only ? ` on ${escapeHtml(only)}` : ""} right now. This page looks again every 3 seconds.</p></section>`) +
      history +
      `<p><a href="${escapeHtml(`${base}/phone`)}">All phones</a> · <a href="${escapeHtml(base)}">Sandbox console</a></p></main>`,
  });
}

function renderConsole(ctx: MpesaContext, req: Request, res: Response) {
  const base = ctx.options.publicPath;
  const { sandbox } = ctx;
  const pending = sandbox.prompts();
  const answered = sandbox
    .allPrompts()
    .filter((p) => p.state === "done")
    .slice(0, SHOW);
  const callbacks = sandbox.callbacks().slice(-SHOW).reverse();
  const chaos = ctx.prompts.getDefaultPlan();
  const deliveryOptions = (selected: string) =>
    DELIVERIES.map((d) => `<option value="${d}"${d === selected ? " selected" : ""}>${d}</option>`).join("");

  const pendingRows = pending
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.CheckoutRequestID)}</code><br><small>${escapeHtml(nairobiTime(p.createdAt))}</small></td>` +
        `<td>${escapeHtml(p.phone)}</td><td>${escapeHtml(p.payee)}</td><td>${escapeHtml(kes(p.amount))}</td><td>${escapeHtml(p.accountReference)}</td><td>` +
        `<form method="post" action="${escapeHtml(`${base}/console/prompts/${p.CheckoutRequestID}`)}">` +
        `<label for="d-${escapeHtml(p.CheckoutRequestID)}">Callback</label><select id="d-${escapeHtml(p.CheckoutRequestID)}" name="delivery">${deliveryOptions(p.plan.delivery)}</select>` +
        `<div class="actions tight">${OUTCOMES.map((o) => `<button type="submit" name="outcome" value="${o}"${o === "accept" ? "" : ' class="secondary"'}>${OUTCOME_LABELS[o]}</button>`).join("")}</div></form></td></tr>`,
    )
    .join("");
  const answeredRows = answered
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.CheckoutRequestID)}</code></td><td>${escapeHtml(p.phone)}</td><td>${escapeHtml(p.payee)}</td><td>${escapeHtml(kes(p.amount))}</td>` +
        `<td>${resultPill(p)} ${p.receipt ? `<code>${escapeHtml(p.receipt)}</code>` : ""}</td><td>${escapeHtml(p.plan.delivery)}</td></tr>`,
    )
    .join("");
  const callbackRows = callbacks
    .map(
      (c) =>
        `<tr><td>${escapeHtml(nairobiTime(c.at))}<br><small>${escapeHtml(c.kind)}${c.copy > 1 ? ` · copy ${c.copy}` : ""}</small></td>` +
        `<td><code>${escapeHtml(c.ref)}</code><br><small>${escapeHtml(c.url)}</small></td><td>${statusPill(c)}${c.error ? `<br><small>${escapeHtml(c.error)}</small>` : ""}</td>` +
        `<td><details><summary>Body</summary><pre>${escapeHtml(JSON.stringify(c.body, null, 2))}</pre></details></td></tr>`,
    )
    .join("");
  const registrations = sandbox.registrations();
  const payoutRows = sandbox
    .payouts()
    .slice(0, SHOW)
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.OriginatorConversationID)}</code><br><small>${escapeHtml(nairobiTime(p.createdAt))}</small></td>` +
        `<td>${escapeHtml(p.partyB)}</td><td>${escapeHtml(kes(p.amount))}</td>` +
        `<td>${pill(p.state === "accepted" ? "in hand" : p.state, p.state === "paid" ? "ok" : p.state === "accepted" ? "wait" : "bad")}` +
        `${p.resultCode !== undefined && p.resultCode !== 0 ? ` <small>${escapeHtml(String(p.resultCode))} ${escapeHtml(p.resultDesc ?? "")}</small>` : ""}` +
        `${p.receipt ? ` <code>${escapeHtml(p.receipt)}</code>` : ""}${p.silent ? " <small>(no callback sent)</small>" : ""}</td></tr>`,
    )
    .join("");
  const magicAmountRows = Object.entries(MAGIC_AMOUNTS)
    .map(([amount, m]) => `<tr><td><code>${escapeHtml(kes(Number(amount)))}</code></td><td>${escapeHtml(m.label)}</td></tr>`)
    .join("");
  const shortcodeRows = ctx.shortcodes
    .all()
    .map(
      (s) =>
        `<tr><td>${escapeHtml(s.label)}</td><td>${escapeHtml(s.kind)}</td><td><code>${escapeHtml(s.shortcode)}</code>${s.tillNumber ? ` · till <code>${escapeHtml(s.tillNumber)}</code>` : ""}</td>` +
        `<td><code>…${escapeHtml(s.consumerKey.slice(-4))}</code></td></tr>`,
    )
    .join("");
  const magicRows = Object.entries(MAGIC_PHONES)
    .map(([phone, m]) => `<tr><td><code>${phone}</code></td><td>${escapeHtml(m.label)}</td></tr>`)
    .join("");

  page(res, {
    title: "M-Pesa sandbox",
    body:
      `<main>${brand}<h1>M-Pesa (Daraja) sandbox</h1>` +
      flash(req.query as Record<string, unknown>) +
      `<p class="muted">Daraja at <code>${escapeHtml(base)}</code>: OAuth, STK push and query, C2B register and simulate, B2C payouts and the transaction status query. Paybill <code>${escapeHtml(ctx.options.shortcode)}</code>. ` +
      `<a href="${escapeHtml(`${base}/phone`)}">Open the customer's phone</a>.</p>` +
      `<section class="card"><h2>Pending STK prompts (${pending.length})</h2>` +
      (pending.length
        ? `<table><thead><tr><th>CheckoutRequestID</th><th>Phone</th><th>To</th><th>Amount</th><th>Account</th><th>Answer</th></tr></thead><tbody>${pendingRows}</tbody></table>`
        : `<p class="muted">None. A push from Jumbe's billing page shows up here and on the phone page.</p>`) +
      `</section>` +
      `<section class="card"><h2>Callback chaos for new prompts</h2><form method="post" action="${escapeHtml(`${base}/console/chaos`)}"><div class="grid">` +
      `<div><label for="chaos-delivery">Delivery</label><select id="chaos-delivery" name="delivery">${deliveryOptions(chaos.delivery)}</select></div>` +
      `<div><label for="chaos-delay">Extra delay (ms)</label><input type="number" id="chaos-delay" name="delayMs" min="0" max="600000" value="${chaos.delayMs}"></div>` +
      `</div><div class="actions"><button type="submit">Set</button></div></form></section>` +
      `<section class="card"><h2>Paybill payment (C2B)</h2>` +
      (registrations.length
        ? `<p class="muted">Registered: ${registrations.map((r) => `<code>${escapeHtml(r.shortCode)}</code> → validation <code>${escapeHtml(r.validationUrl)}</code>, confirmation <code>${escapeHtml(r.confirmationUrl)}</code> (${escapeHtml(r.responseType)})`).join("; ")}</p>`
        : `<p class="muted">No C2B URLs registered yet.</p>`) +
      `<form method="post" action="${escapeHtml(`${base}/console/c2b`)}"><div class="grid">` +
      `<div><label for="c2b-msisdn">Phone</label><input type="tel" id="c2b-msisdn" name="msisdn" value="254708374149" required></div>` +
      `<div><label for="c2b-amount">Amount (KES)</label><input type="number" id="c2b-amount" name="amount" min="1" max="250000" value="1000" required></div>` +
      `<div><label for="c2b-ref">Account number</label><input type="text" id="c2b-ref" name="billRefNumber" maxlength="20" required></div>` +
      `<div><label for="c2b-format">MSISDN sent as</label><select id="c2b-format" name="msisdnFormat"><option>plain</option><option>hashed</option><option>masked</option></select></div>` +
      `</div><div class="actions"><button type="submit">Pay the paybill</button></div></form></section>` +
      `<section class="card"><h2>Callbacks sent</h2>` +
      (callbackRows
        ? `<table><thead><tr><th>When</th><th>For / to</th><th>Answer</th><th></th></tr></thead><tbody>${callbackRows}</tbody></table>`
        : `<p class="muted">None yet.</p>`) +
      `</section>` +
      (answeredRows
        ? `<section class="card"><h2>Answered prompts</h2><table><thead><tr><th>CheckoutRequestID</th><th>Phone</th><th>To</th><th>Amount</th><th>Result</th><th>Callback</th></tr></thead><tbody>${answeredRows}</tbody></table></section>`
        : "") +
      `<section class="card"><h2>Payouts (B2C)</h2>` +
      (payoutRows
        ? `<table><thead><tr><th>OriginatorConversationID</th><th>To</th><th>Amount</th><th>Result</th></tr></thead><tbody>${payoutRows}</tbody></table>`
        : `<p class="muted">None yet. A partner's settlement paid by M-Pesa shows up here.</p>`) +
      `<h3>Magic amounts</h3><table><tbody>${magicAmountRows}</tbody></table></section>` +
      `<section class="card"><h2>Shortcodes (${ctx.shortcodes.all().length})</h2><p class="muted">Each with its own Daraja app; a token from one app may not use another's shortcode. Add one with <code>POST ${escapeHtml(base)}/control/shortcodes</code>.</p>` +
      `<table><thead><tr><th>Label</th><th>Kind</th><th>Number</th><th>App key</th></tr></thead><tbody>${shortcodeRows}</tbody></table></section>` +
      `<section class="card"><h2>Magic phone numbers</h2><table><tbody>${magicRows}</tbody></table></section>` +
      `<form method="post" action="${escapeHtml(`${base}/console/reset`)}"><button type="submit" class="secondary">Reset the M-Pesa sandbox</button></form></main>`,
  });
}
