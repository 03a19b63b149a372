import express, { Router, type Response } from "express";
import { FAULTS, MAGIC_VALUES } from "../faults";
import type { ShopifyContext } from "./context";
import {
  ControlError,
  createCheckout,
  createFulfillment,
  createOrder,
  queueFault,
  shopView,
  uninstall,
  updateCheckout,
  updateFulfillment,
} from "./control";
import { backWithNotice, escapeHtml, noticeOf, page, when } from "./html";
import { DELIVERIES } from "./webhooks";
import { financialStatusOf, type Order } from "./state";

const PHONE_PLACES = ["order", "customer", "shipping_address", "billing_address"] as const;

const options = (values: readonly string[], labels?: (v: string) => string) =>
  values.map((v) => `<option value="${escapeHtml(v)}">${escapeHtml(labels ? labels(v) : v)}</option>`).join("");

/** The order or checkout input a console form describes: the phone where the form says it goes. */
function customerInput(form: Record<string, unknown>) {
  const phone = String(form.phone ?? "").trim();
  const place = String(form.phone_in ?? "order");
  const person = {
    first_name: String(form.first_name ?? "").trim(),
    last_name: String(form.last_name ?? "").trim(),
    email: String(form.email ?? "").trim(),
  };
  return {
    delivery: form.delivery,
    ...(form.financial_status ? { financial_status: form.financial_status } : {}),
    ...(place === "order" ? { phone } : {}),
    customer: { ...person, ...(place === "customer" ? { phone } : {}) },
    shipping_address: { ...person, ...(place === "shipping_address" ? { phone } : {}) },
    ...(place === "billing_address" ? { billing_address: { ...person, phone } } : {}),
  };
}

function shopsCard(ctx: ShopifyContext) {
  const base = ctx.options.publicPath;
  const rows = [...ctx.state.shops.values()]
    .map((shop) => {
      const view = shopView(ctx, shop);
      const subs =
        view.subscriptions.map((s) => `<code>${escapeHtml(s.topic)}</code> → <small>${escapeHtml(s.address)}</small>`).join("<br>") || "—";
      const remove = view.installed
        ? `<form method="post" action="${escapeHtml(`${base}/console/shops/${shop.domain}/uninstall`)}"><button type="submit" class="secondary">Remove the app</button></form>`
        : "";
      return `<tr><td><strong>${escapeHtml(shop.name)}</strong><br><code>${escapeHtml(shop.domain)}</code></td><td>${view.installed ? "installed" : "not installed"}</td><td>${subs}</td><td>${view.orders}</td><td>${remove}</td></tr>`;
    })
    .join("");
  return `<section class="card"><h2>Test shops</h2><table><thead><tr><th scope="col">Shop</th><th scope="col">App</th><th scope="col">Webhook subscriptions</th><th scope="col">Orders</th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

function actionsCard(ctx: ShopifyContext) {
  const base = ctx.options.publicPath;
  const shops = options([...ctx.state.shops.keys()]);
  const deliveries = options(DELIVERIES);
  const person =
    `<label>First name <input type="text" name="first_name" value="Wanjiku"></label><label>Last name <input type="text" name="last_name" value="Kamau"></label>` +
    `<label>Phone <input type="tel" name="phone" value="0712 345 678"></label><label>Phone is on the <select name="phone_in">${options(PHONE_PLACES)}</select></label>` +
    `<label>Delivery <select name="delivery">${deliveries}</select></label>`;
  const orders = [...ctx.state.orders.values()].reverse().slice(0, 50);
  const orderOptions = orders.map((o) => `<option value="${o.id}">#${o.number} · ${escapeHtml(o.shop)}</option>`).join("");
  const fulfillments = orders
    .flatMap((o) =>
      o.fulfillments.map((f) => `<option value="${f.id}">#${o.number}.${f.sequence} · ${escapeHtml(f.trackingNumber ?? "")}</option>`),
    )
    .join("");
  const checkouts = [...ctx.state.checkouts.values()]
    .reverse()
    .slice(0, 50)
    .filter((c) => c.completedAt === null);
  const checkoutOptions = checkouts
    .map((c) => `<option value="${escapeHtml(c.token)}">${escapeHtml(c.token.slice(0, 8))} · ${escapeHtml(c.shop)}</option>`)
    .join("");
  return (
    `<section class="card"><h2>A customer orders</h2><form method="post" action="${escapeHtml(`${base}/console/orders`)}"><label>Shop <select name="shop">${shops}</select></label>${person}<label>Payment <select name="financial_status"><option value="paid">Paid at checkout</option><option value="pending">Cash on delivery (pending)</option></select></label><div class="actions"><button type="submit">Create order</button></div></form></section>` +
    ordersTable(orders) +
    `<section class="card"><h2>Fulfil an order</h2>${orderOptions ? `<form method="post" action="${escapeHtml(`${base}/console/fulfillments`)}"><label>Order <select name="order">${orderOptions}</select></label><label>Tracking number <input type="text" name="tracking_number"></label><label>Delivery <select name="delivery">${deliveries}</select></label><div class="actions"><button type="submit">Fulfil with tracking</button></div></form>` : "<p>No orders yet.</p>"}` +
    (fulfillments
      ? `<form method="post" action="${escapeHtml(`${base}/console/fulfillments/update`)}"><label>Fulfilment <select name="fulfillment">${fulfillments}</select></label><label>Shipment status <select name="shipment_status">${options(["in_transit", "out_for_delivery", "delivered", "failure"])}</select></label><div class="actions"><button type="submit">Update</button></div></form>`
      : "") +
    `</section>` +
    `<section class="card"><h2>A customer starts a checkout</h2><form method="post" action="${escapeHtml(`${base}/console/checkouts`)}"><label>Shop <select name="shop">${shops}</select></label>${person}<div class="actions"><button type="submit">Create checkout</button></div></form>` +
    (checkoutOptions
      ? `<form method="post" action="${escapeHtml(`${base}/console/checkouts/complete`)}"><label>Open checkout <select name="token">${checkoutOptions}</select></label><div class="actions"><button type="submit" class="secondary">Complete it (checkouts/update)</button></div></form>`
      : "") +
    `</section>`
  );
}

/** The latest orders with their financial status (an app's orderMarkAsPaid turns pending into paid). */
function ordersTable(orders: Order[]) {
  if (!orders.length) return "";
  const rows = orders
    .slice(0, 20)
    .map(
      (o) =>
        `<tr><td>#${o.number}<br><small>${escapeHtml(o.shop)}</small></td><td><span class="pill">${escapeHtml(financialStatusOf(o))}</span></td><td>${(o.transactions ?? []).length}</td></tr>`,
    )
    .join("");
  return `<section class="card"><h2>Orders</h2><table><thead><tr><th scope="col">Order</th><th scope="col">Financial status</th><th scope="col">Sales recorded</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

function webhooksCard(ctx: ShopifyContext) {
  const base = ctx.options.publicPath;
  const rows = ctx.sender
    .list()
    .reverse()
    .slice(0, 100)
    .map(
      (w) =>
        `<tr><td>${w.index}${w.duplicateOf === undefined ? "" : `<br><small>again of ${w.duplicateOf}</small>`}</td><td><code>${escapeHtml(w.topic)}</code><br><small>${escapeHtml(w.shop)} · ${escapeHtml(w.delivery)}</small></td>` +
        `<td><span class="pill ${escapeHtml(w.state)}">${escapeHtml(w.state)}</span><br><small>${w.attempts.map((a) => escapeHtml(a.status !== undefined ? `HTTP ${a.status}` : (a.error ?? ""))).join(", ")}</small></td>` +
        `<td><details><summary>body</summary><pre>${escapeHtml(w.body)}</pre><small>X-Shopify-Hmac-Sha256: <code>${escapeHtml(w.hmac)}</code><br>X-Shopify-Event-Id: <code>${escapeHtml(w.eventId)}</code></small></details></td>` +
        `<td><form method="post" action="${escapeHtml(`${base}/console/webhooks/${w.index}/resend`)}"><button type="submit" class="secondary">Resend</button></form></td></tr>`,
    )
    .join("");
  return `<section class="card"><h2>Webhooks sent</h2>${rows ? `<table><thead><tr><th scope="col">#</th><th scope="col">Topic</th><th scope="col">Delivery</th><th scope="col">Bytes</th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table>` : "<p>None yet: install the app and subscribe to a topic.</p>"}</section>`;
}

function faultsCard(ctx: ShopifyContext) {
  const base = ctx.options.publicPath;
  const calls = ctx.calls
    .list()
    .slice(0, 50)
    .map(
      (c) =>
        `<tr><td>${when(c.at)}</td><td><code>${escapeHtml(`${c.method} ${c.path}`)}</code></td><td>${c.status ?? ""}</td><td>${escapeHtml(c.fault ?? "")}</td></tr>`,
    )
    .join("");
  return (
    `<section class="card"><h2>Faults and API calls</h2><p>Magic values anywhere in an Admin API call: ${FAULTS.map((f) => `<code>${MAGIC_VALUES[f]}</code>`).join(", ")}. Pending: ${escapeHtml(ctx.faults.pending().join(", ") || "none")}.</p>` +
    `<form method="post" action="${escapeHtml(`${base}/console/faults`)}"><div class="actions"><label>Next calls answer <select name="fault">${options(FAULTS)}</select></label><label>Times <input type="number" name="times" value="1" min="1" max="100"></label></div><div class="actions"><button type="submit">Queue</button></div></form>` +
    (calls
      ? `<table><thead><tr><th scope="col">When</th><th scope="col">Call</th><th scope="col">Status</th><th scope="col">Fault</th></tr></thead><tbody>${calls}</tbody></table>`
      : "") +
    `<form method="post" action="${escapeHtml(`${base}/console/reset`)}"><div class="actions"><button type="submit" class="secondary">Reset the sandbox</button></div></form></section>`
  );
}

/** The console (gated): test shops and their installs, forms that make orders, fulfilments and checkouts, the webhooks sent. */
export function consoleRouter(ctx: ShopifyContext): Router {
  const router = Router({ caseSensitive: true });
  const base = ctx.options.publicPath;
  const forms = express.urlencoded({ extended: false, limit: "8kb" });
  const act = (res: Response, fn: () => { webhooks: unknown[] }, done: string) => {
    try {
      const result = fn();
      backWithNotice(res, base, `${done} ${result.webhooks.length} webhook(s) queued.`);
    } catch (error) {
      if (!(error instanceof ControlError)) throw error;
      backWithNotice(res, base, error.message);
    }
  };
  const form = (body: unknown) => (body ?? {}) as Record<string, unknown>;

  router.get("/", (req, res) => {
    const notice = noticeOf(req.query);
    page(res, {
      title: "Shopify sandbox",
      width: 1100,
      body:
        `<main><p class="brand">Shopify · sandbox</p><h1>Shopify sandbox</h1>` +
        (notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : "") +
        `<p class="muted">The app install, the Admin API's webhooks and the store's events, sent as signed webhooks. JSON: <code>${escapeHtml(base)}/control/shops</code>, <code>${escapeHtml(base)}/control/webhooks</code>.</p>` +
        shopsCard(ctx) +
        actionsCard(ctx) +
        webhooksCard(ctx) +
        faultsCard(ctx) +
        `</main>`,
    });
  });

  router.post("/console/orders", forms, (req, res) =>
    act(res, () => createOrder(ctx, String(form(req.body).shop), customerInput(form(req.body))), "Order created."),
  );
  router.post("/console/fulfillments", forms, (req, res) =>
    act(res, () => createFulfillment(ctx, Number(form(req.body).order), form(req.body)), "Order fulfilled."),
  );
  router.post("/console/fulfillments/update", forms, (req, res) =>
    act(res, () => updateFulfillment(ctx, Number(form(req.body).fulfillment), form(req.body)), "Fulfilment updated."),
  );
  router.post("/console/checkouts", forms, (req, res) =>
    act(res, () => createCheckout(ctx, String(form(req.body).shop), customerInput(form(req.body))), "Checkout created."),
  );
  router.post("/console/checkouts/complete", forms, (req, res) =>
    act(res, () => updateCheckout(ctx, String(form(req.body).token), { completed: true }), "Checkout completed."),
  );
  router.post("/console/shops/:shop/uninstall", (req, res) => act(res, () => uninstall(ctx, String(req.params.shop)), "App removed."));
  router.post("/console/webhooks/:index/resend", (req, res) => {
    const index = String(req.params.index);
    const record = /^\d{1,9}$/.test(index) ? ctx.sender.resend(Number(index)) : undefined;
    backWithNotice(res, base, record ? `Webhook ${index} sent again as ${record.index}.` : `No webhook ${index}.`);
  });
  router.post("/console/faults", forms, (req, res) =>
    backWithNotice(
      res,
      base,
      queueFault(ctx, form(req.body).fault, form(req.body).times) ? `Queued: ${String(form(req.body).fault)}.` : "Not a fault.",
    ),
  );
  router.post("/console/reset", (_req, res) => {
    ctx.state.reset();
    ctx.sender.reset();
    ctx.faults.clear();
    ctx.calls.reset();
    backWithNotice(res, base, "The sandbox is back to its test shops.");
  });
  return router;
}
