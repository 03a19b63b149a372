import express, { Router, type NextFunction, type Request, type Response } from "express";
import { groupDigits, normaliseCardNumber, parseExpiry, TEST_CARDS, TEST_OTP, testCard } from "./cards";
import type { PaystackContext } from "./context";
import { escapeHtml, kes, page } from "./html";
import type { SandboxTransaction } from "./state";

interface FormState {
  error?: string;
  number?: string;
  expiry?: string;
  status?: number;
}

/** The callback URL with Paystack's `trxref` and `reference`, or null when none was given. */
export function callbackFor(tx: SandboxTransaction): string | null {
  if (!tx.callbackUrl) return null;
  const url = new URL(tx.callbackUrl);
  url.searchParams.set("trxref", tx.reference);
  url.searchParams.set("reference", tx.reference);
  return url.href;
}

function header(ctx: PaystackContext, tx: SandboxTransaction) {
  return (
    `<p class="brand">paystack · sandbox checkout</p>` +
    `<h1>Pay ${escapeHtml(ctx.options.merchantName)}</h1>` +
    `<p class="amount">${escapeHtml(kes(tx.amount, tx.currency))}</p>` +
    `<p class="muted">${escapeHtml(tx.email)} · reference <code>${escapeHtml(tx.reference)}</code></p>`
  );
}

function cancelLink(tx: SandboxTransaction) {
  const back = callbackFor(tx);
  return back ? `<p><a class="button secondary" href="${escapeHtml(back)}">Cancel payment</a></p>` : "";
}

function testCardList() {
  const rows = TEST_CARDS.map(
    (card) =>
      `<tr><td><code>${groupDigits(card.number)}</code></td><td><code>${card.cvv}</code></td><td>${escapeHtml(card.description)}</td></tr>`,
  ).join("");
  return (
    `<section class="card" aria-labelledby="test-cards"><h2 id="test-cards">Test cards</h2>` +
    `<p class="muted">This is a sandbox: no real card is charged, and only these cards work. Any future expiry date.</p>` +
    `<table><thead><tr><th scope="col">Card number</th><th scope="col">CVV</th><th scope="col">What happens</th></tr></thead><tbody>${rows}</tbody></table>` +
    `<p class="muted">The 3-D Secure card asks for the bank's one-time code: <code>${TEST_OTP}</code> passes, anything else fails.</p></section>`
  );
}

function renderCheckout(res: Response, ctx: PaystackContext, tx: SandboxTransaction, form: FormState = {}) {
  const action = `${ctx.options.publicPath}/checkout/${encodeURIComponent(tx.accessCode)}`;
  const error = form.error ? `<p class="error" role="alert" id="pay-error">${escapeHtml(form.error)}</p>` : "";
  const described = form.error ? ` aria-describedby="pay-error"` : "";
  page(res, {
    title: `Pay ${ctx.options.merchantName} · Paystack sandbox`,
    status: form.status,
    body:
      `<main><div class="card">${header(ctx, tx)}${error}` +
      `<form method="post" action="${escapeHtml(action)}" novalidate>` +
      `<label for="card-number">Card number</label><input id="card-number" name="number" inputmode="numeric" autocomplete="cc-number" required value="${escapeHtml(form.number ?? "")}"${described}>` +
      `<div class="row"><div><label for="card-expiry">Expiry (MM/YY)</label><input id="card-expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YY" required value="${escapeHtml(form.expiry ?? "")}"></div>` +
      `<div><label for="card-cvv">CVV</label><input id="card-cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" required></div></div>` +
      `<button type="submit" class="wide">Pay ${escapeHtml(kes(tx.amount, tx.currency))}</button></form>` +
      `${cancelLink(tx)}</div>${testCardList()}</main>`,
  });
}

function renderOtp(res: Response, ctx: PaystackContext, tx: SandboxTransaction, status = 200) {
  const action = `${ctx.options.publicPath}/checkout/${encodeURIComponent(tx.accessCode)}/otp`;
  page(res, {
    title: "3-D Secure · Paystack sandbox",
    status,
    body:
      `<main><div class="card"><p class="brand">TEST BANK · 3-D Secure</p><h1>Confirm this payment</h1>` +
      `<p>${escapeHtml(kes(tx.amount, tx.currency))} to ${escapeHtml(ctx.options.merchantName)} with the card ending ${escapeHtml(tx.card?.last4 ?? "")}.</p>` +
      `<p class="muted">Your bank has sent a one-time code. In the sandbox it is <code>${TEST_OTP}</code>; any other code fails the payment.</p>` +
      `<form method="post" action="${escapeHtml(action)}"><label for="otp">One-time code</label>` +
      `<input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" required>` +
      `<button type="submit" class="wide">Confirm</button></form></div></main>`,
  });
}

function renderDone(res: Response, ctx: PaystackContext, tx: SandboxTransaction) {
  const back = callbackFor(tx);
  page(res, {
    title: "Payment successful · Paystack sandbox",
    body:
      `<main><div class="card">${header(ctx, tx)}<p class="notice" role="status">This payment was successful.</p>` +
      (back ? `<p><a class="button" href="${escapeHtml(back)}">Continue</a></p>` : `<p>You can close this page.</p>`) +
      `</div></main>`,
  });
}

function notFoundPage(res: Response) {
  page(res, {
    title: "Payment link not found · Paystack sandbox",
    status: 404,
    body: `<main><div class="card"><p class="brand">paystack · sandbox checkout</p><h1>This payment link is not valid</h1><p>It may have been mistyped, or the sandbox was restarted (it keeps transactions in memory only). Go back to the shop and start the payment again.</p></div></main>`,
  });
}

/** After a payment: Paystack sends the browser to the callback URL with the reference. */
function finish(res: Response, ctx: PaystackContext, tx: SandboxTransaction) {
  const back = callbackFor(tx);
  if (back) return void res.redirect(303, back);
  renderDone(res, ctx, tx);
}

const text = (value: unknown) => (typeof value === "string" ? value : "");

/** The hosted checkout: plain HTML forms, no JavaScript; open to the payer (not gated). */
export function checkoutRouter(ctx: PaystackContext): Router {
  const router = Router({ caseSensitive: true });
  const forms = express.urlencoded({ extended: false, limit: "8kb" });
  const formErrors = (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const status = (error as { status?: number } | undefined)?.status;
    if (!status || status >= 500) return next(error);
    page(res, {
      title: "Bad request · Paystack sandbox",
      status: status === 413 ? 413 : 400,
      body: `<main><div class="card"><h1>${status === 413 ? "That form was too large" : "That form could not be read"}</h1><p>Go back and try again.</p></div></main>`,
    });
  };

  const transaction = (req: Request) => ctx.store.byCode(String(req.params.accessCode));

  router.get("/checkout/:accessCode", (req, res) => {
    const tx = transaction(req);
    if (!tx) return notFoundPage(res);
    if (tx.status === "success") return renderDone(res, ctx, tx);
    if (tx.status === "ongoing")
      return void res.redirect(303, `${ctx.options.publicPath}/checkout/${encodeURIComponent(tx.accessCode)}/otp`);
    renderCheckout(res, ctx, tx);
  });

  router.post("/checkout/:accessCode", forms, formErrors, (req: Request, res: Response) => {
    const tx = transaction(req);
    if (!tx) return notFoundPage(res);
    if (tx.status === "success") return renderDone(res, ctx, tx);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const typed = text(body.number).slice(0, 40);
    const expiryText = text(body.expiry).slice(0, 10);
    const cvv = text(body.cvv).trim();
    const again = (error: string, status = 422) => renderCheckout(res, ctx, tx, { error, number: typed, expiry: expiryText, status });

    const number = normaliseCardNumber(typed);
    if (!number) return again("Enter the card number: 12 to 19 digits.");
    const expiry = parseExpiry(expiryText, new Date(ctx.options.now()));
    if ("error" in expiry) return again(expiry.error);
    if (!/^\d{3,4}$/.test(cvv)) return again("Enter the CVV: the 3 digits on the back of the card.");
    const card = testCard(number);
    if (!card) return again("This sandbox takes only the test cards listed below; no real card can be charged here.");

    const result = ctx.desk.payWithCard(tx, card, expiry);
    if (result.kind === "otp") return void res.redirect(303, `${ctx.options.publicPath}/checkout/${encodeURIComponent(tx.accessCode)}/otp`);
    if (result.kind === "declined") return again(`Declined: ${result.gatewayResponse}. Nothing was charged. Try another card.`, 200);
    if (result.kind === "refused") return again(result.message, 409);
    finish(res, ctx, tx);
  });

  router.get("/checkout/:accessCode/otp", (req, res) => {
    const tx = transaction(req);
    if (!tx) return notFoundPage(res);
    if (tx.status !== "ongoing") return void res.redirect(303, `${ctx.options.publicPath}/checkout/${encodeURIComponent(tx.accessCode)}`);
    renderOtp(res, ctx, tx);
  });

  router.post("/checkout/:accessCode/otp", forms, formErrors, (req: Request, res: Response) => {
    const tx = transaction(req);
    if (!tx) return notFoundPage(res);
    if (tx.status !== "ongoing") return void res.redirect(303, `${ctx.options.publicPath}/checkout/${encodeURIComponent(tx.accessCode)}`);
    const result = ctx.desk.submitOtp(tx, text((req.body as Record<string, unknown> | undefined)?.otp).slice(0, 20));
    if (result.kind === "declined")
      return renderCheckout(res, ctx, tx, { error: `Declined: ${result.gatewayResponse}. Nothing was charged. Try again.` });
    finish(res, ctx, tx);
  });

  return router;
}
