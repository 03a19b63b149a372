import express, { Router } from "express";
import { FAULTS, MAGIC_VALUES } from "../faults";
import type { HubspotContext } from "./context";
import { addContactByControl, expireTokens, portalView, queueFault } from "./control";
import { backWithNotice, escapeHtml, noticeOf, page, when } from "./html";
import type { Portal } from "./state";

const CONTACT_COLUMNS = ["email", "firstname", "lastname", "phone", "mobilephone"];

function portalSection(ctx: HubspotContext, portal: Portal) {
  const base = ctx.options.publicPath;
  const view = portalView(ctx, portal);
  const contacts = ctx.state.contactsOf(portal.hubId).slice(-100).reverse();
  const rows = contacts
    .map((c) => `<tr><td>${c.id}</td>${CONTACT_COLUMNS.map((p) => `<td>${escapeHtml(c.properties[p] ?? "")}</td>`).join("")}</tr>`)
    .join("");
  const lists = view.lists
    .map((l) => `<li>${escapeHtml(l.name)} <small>(list ${escapeHtml(l.listId)}, ${l.size} contacts)</small></li>`)
    .join("");
  const comms = ctx.state
    .communicationsOf(portal.hubId)
    .slice(-20)
    .reverse()
    .map(
      (c) =>
        `<li><small>${when(c.createdAt)} · contact ${escapeHtml(c.contactIds.join(", "))}</small><br>${escapeHtml(c.properties.hs_communication_body ?? "")}</li>`,
    )
    .join("");
  return (
    `<section class="card"><h2>${escapeHtml(portal.name)} <small>Hub ID ${portal.hubId} · ${view.liveAccessTokens} live access tokens</small></h2>` +
    `<form method="post" action="${escapeHtml(`${base}/console/portals/${portal.hubId}/expire-tokens`)}"><button type="submit" class="secondary">Expire its access tokens now</button></form>` +
    `<h3>Contacts (${view.contacts})</h3>` +
    (rows
      ? `<table><thead><tr><th scope="col">ID</th>${CONTACT_COLUMNS.map((p) => `<th scope="col">${p}</th>`).join("")}</tr></thead><tbody>${rows}</tbody></table>`
      : "<p>None.</p>") +
    `<form method="post" action="${escapeHtml(`${base}/console/portals/${portal.hubId}/contacts`)}"><div class="actions">` +
    `<label>E-mail <input type="email" name="email"></label><label>First name <input type="text" name="firstname"></label>` +
    `<label>Last name <input type="text" name="lastname"></label><label>Phone <input type="tel" name="phone"></label>` +
    `</div><div class="actions"><button type="submit">Add contact</button></div></form>` +
    `<h3>Lists</h3>${lists ? `<ul>${lists}</ul>` : "<p>None.</p>"}` +
    `<h3>WhatsApp messages logged</h3>${comms ? `<ul>${comms}</ul>` : "<p>None yet.</p>"}</section>`
  );
}

function faultsSection(ctx: HubspotContext) {
  const base = ctx.options.publicPath;
  const options = FAULTS.map((f) => `<option value="${f}">${f}</option>`).join("");
  const magic = FAULTS.map((f) => `<code>${MAGIC_VALUES[f]}</code>`).join(", ");
  return (
    `<section class="card"><h2>Faults</h2><p>Magic values anywhere in a call's path, query or body: ${magic}. ` +
    `Rate limit: ${ctx.options.rateLimit.max} calls per ${ctx.options.rateLimit.intervalMs} ms per app and portal. Pending: ${escapeHtml(ctx.faults.pending().join(", ") || "none")}.</p>` +
    `<form method="post" action="${escapeHtml(`${base}/console/faults`)}"><div class="actions"><label>Next calls answer <select name="fault">${options}</select></label>` +
    `<label>Times <input type="number" name="times" value="1" min="1" max="100"></label></div><div class="actions"><button type="submit">Queue</button></div></form></section>`
  );
}

function callsSection(ctx: HubspotContext) {
  const rows = ctx.calls
    .list()
    .slice(0, 100)
    .map(
      (c) =>
        `<tr><td>${when(c.at)}</td><td><code>${escapeHtml(`${c.method} ${c.path}`)}</code></td><td>${c.status ?? ""}</td><td>${escapeHtml(c.account ?? "")}</td><td>${escapeHtml(c.fault ?? "")}</td></tr>`,
    )
    .join("");
  return `<section class="card"><h2>API calls</h2>${rows ? `<table><thead><tr><th scope="col">When</th><th scope="col">Call</th><th scope="col">Status</th><th scope="col">Hub ID</th><th scope="col">Fault</th></tr></thead><tbody>${rows}</tbody></table>` : "<p>None yet.</p>"}</section>`;
}

/** The console (gated): each portal's contacts, lists and logged messages, the faults, the API calls. */
export function consoleRouter(ctx: HubspotContext): Router {
  const router = Router({ caseSensitive: true });
  const base = ctx.options.publicPath;
  const forms = express.urlencoded({ extended: false, limit: "8kb" });

  router.get("/", (req, res) => {
    const notice = noticeOf(req.query);
    page(res, {
      title: "HubSpot sandbox",
      width: 1100,
      body:
        `<main><p class="brand">HubSpot · sandbox</p><h1>HubSpot sandbox</h1>` +
        (notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : "") +
        `<p class="muted">OAuth, CRM v3 contacts, lists and communications for test portals. JSON: <code>${escapeHtml(base)}/control/portals</code>.</p>` +
        [...ctx.state.portals.values()].map((p) => portalSection(ctx, p)).join("") +
        faultsSection(ctx) +
        callsSection(ctx) +
        `<form method="post" action="${escapeHtml(`${base}/console/reset`)}"><button type="submit" class="secondary">Reset the sandbox</button></form></main>`,
    });
  });

  router.post("/console/portals/:hubId/expire-tokens", (req, res) => {
    const hubId = Number(req.params.hubId);
    backWithNotice(
      res,
      base,
      ctx.state.portal(hubId) ? `Expired ${expireTokens(ctx, hubId)} access tokens of ${hubId}.` : `No portal ${hubId}.`,
    );
  });

  router.post("/console/portals/:hubId/contacts", forms, (req, res) => {
    const hubId = Number(req.params.hubId);
    if (!ctx.state.portal(hubId)) return backWithNotice(res, base, `No portal ${hubId}.`);
    const added = addContactByControl(ctx, hubId, (req.body ?? {}) as Record<string, unknown>);
    backWithNotice(res, base, "contact" in added ? `Contact ${added.contact.id} added.` : added.error);
  });

  router.post("/console/faults", forms, (req, res) => {
    const form = (req.body ?? {}) as Record<string, unknown>;
    backWithNotice(res, base, queueFault(ctx, form.fault, form.times) ? `Queued: ${String(form.fault)}.` : "Not a fault.");
  });

  router.post("/console/reset", (_req, res) => {
    ctx.state.reset();
    ctx.faults.clear();
    ctx.calls.reset();
    ctx.limiter.reset();
    backWithNotice(res, base, "The sandbox is back to its test portals.");
  });

  return router;
}
