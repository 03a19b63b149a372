import express, { Router, type Request, type Response } from "express";
import type { SandboxContext } from "./context";
import { isProductMessage, productsShown } from "./catalogs";
import { brand, page } from "./html";
import type { SandboxMessage } from "./types";
import { escapeHtml } from "./util";

/**
 * The customer's side of the shop (plain forms, no JavaScript): the product messages a business
 * sent, each with the products it shows; the tester fills in quantities and sends the cart, which
 * reaches Jumbe as Meta's signed `order` webhook, in reply to that message.
 */

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => !!value && typeof value === "object" && !Array.isArray(value);
const SHOW = 20;

const productMessages = (ctx: SandboxContext): SandboxMessage[] =>
  ctx.sandbox
    .messages()
    .filter((m) => m.type === "interactive" && isObject(m.body.interactive) && isProductMessage(m.body.interactive.type))
    .slice(-SHOW)
    .reverse();

export function shopConsoleRouter(ctx: SandboxContext): Router {
  const router = Router({ caseSensitive: true });
  const base = ctx.options.publicPath;
  router.get("/console/shop", (req, res) => renderShop(ctx, req, res));
  router.post("/console/shop/order", express.urlencoded({ extended: false, limit: "64kb" }), async (req: Request, res: Response) => {
    const back = (outcome: Record<string, string>) => res.redirect(303, `${base}/console/shop?${new URLSearchParams(outcome).toString()}`);
    try {
      const { wamid } = await sendOrder(ctx, (req.body ?? {}) as Obj);
      back({ notice: `Sent the order ${wamid} to the business.` });
    } catch (error) {
      back({ error: error instanceof Error ? error.message : String(error) });
    }
  });
  return router;
}

/** The cart of the form: the message's products with a quantity above 0, priced from the catalog. */
async function sendOrder(ctx: SandboxContext, body: Obj) {
  const wamid = typeof body.wamid === "string" ? body.wamid : "";
  const sent = ctx.sandbox.messages().find((m) => m.wamid === wamid);
  const phone = sent ? ctx.store.phoneNumbers.get(sent.phoneNumberId) : undefined;
  if (!sent || !phone || !isObject(sent.body.interactive)) throw new Error("That product message is no longer in the sandbox.");
  const shown = productsShown(ctx.store, phone.wabaId, sent.body.interactive);
  if (!shown) throw new Error("No catalog is connected to the business's WhatsApp account any more.");
  const items = shown.products.flatMap((p) => {
    const raw = body[`qty_${p.retailerId}`];
    const quantity = typeof raw === "string" && /^\d{1,3}$/.test(raw.trim()) ? Number(raw) : 0;
    return quantity > 0 ? [{ retailerId: p.retailerId, quantity, itemPrice: p.price / 100, currency: p.currency }] : [];
  });
  if (!items.length) throw new Error("Add at least one product to the cart (a quantity of 1 or more).");
  const note = typeof body.note === "string" ? body.note.trim().slice(0, 1024) : "";
  return ctx.sandbox.sendInbound({
    phoneNumberId: phone.id,
    from: sent.waId,
    name: typeof body.name === "string" && body.name.trim() ? body.name.trim() : "WhatsApp User",
    type: "order",
    contextId: sent.wamid,
    order: { catalogId: shown.catalog.id, text: note, items },
  });
}

function renderShop(ctx: SandboxContext, req: Request, res: Response) {
  const base = escapeHtml(ctx.options.publicPath);
  const notice = typeof req.query.notice === "string" ? req.query.notice : "";
  const error = typeof req.query.error === "string" ? req.query.error : "";
  const cards = productMessages(ctx)
    .map((m) => {
      const phone = ctx.store.phoneNumbers.get(m.phoneNumberId);
      const interactive = isObject(m.body.interactive) ? m.body.interactive : {};
      const shown = phone ? productsShown(ctx.store, phone.wabaId, interactive) : undefined;
      const header = isObject(interactive.header) && typeof interactive.header.text === "string" ? interactive.header.text : "";
      const bodyText = isObject(interactive.body) && typeof interactive.body.text === "string" ? interactive.body.text : "";
      const rows = (shown?.products ?? [])
        .map(
          (p) =>
            `<tr><td>${escapeHtml(p.name)}<br><small>${escapeHtml(p.retailerId)} · ${escapeHtml(p.availability)}</small></td>` +
            `<td>${escapeHtml(p.currency)} ${(p.price / 100).toFixed(2)}</td>` +
            `<td><label class="field" for="q-${escapeHtml(m.wamid)}-${escapeHtml(p.retailerId)}">Quantity of ${escapeHtml(p.name)}</label>` +
            `<input type="number" min="0" max="999" value="0" id="q-${escapeHtml(m.wamid)}-${escapeHtml(p.retailerId)}" name="qty_${escapeHtml(p.retailerId)}"></td></tr>`,
        )
        .join("");
      return (
        `<section class="card" aria-label="${escapeHtml(`Product message to +${m.waId}`)}"><h2>${escapeHtml(header || String(interactive.type))}</h2>` +
        `<p>${escapeHtml(bodyText)}</p><p class="muted">To +${escapeHtml(m.waId)} · ${escapeHtml(m.acceptedAt)}</p>` +
        `<form method="post" action="${base}/console/shop/order"><input type="hidden" name="wamid" value="${escapeHtml(m.wamid)}">` +
        `<table><thead><tr><th>Product</th><th>Price</th><th>In the cart</th></tr></thead><tbody>${rows}</tbody></table>` +
        `<label class="field" for="w-${escapeHtml(m.wamid)}">Customer's WhatsApp name</label><input type="text" id="w-${escapeHtml(m.wamid)}" name="name" value="WhatsApp User">` +
        `<label class="field" for="n-${escapeHtml(m.wamid)}">Note to the business</label><input type="text" id="n-${escapeHtml(m.wamid)}" name="note">` +
        `<div class="actions"><button type="submit">Send order</button></div></form></section>`
      );
    })
    .join("");
  page(res, {
    title: "Meta sandbox · customer's cart",
    width: 900,
    body:
      `<main>${brand}<h1>The customer's cart</h1><p><a href="${base}">Back to the console</a></p>` +
      (notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : "") +
      (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "") +
      (cards || `<p class="muted">No product messages yet: send a product or a product list from Jumbe's inbox.</p>`) +
      `</main>`,
  });
}
