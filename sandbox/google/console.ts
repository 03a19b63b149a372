import express, { Router } from "express";
import { FAULTS, MAGIC_VALUES } from "../faults";
import { columnName } from "./a1";
import type { GoogleContext } from "./context";
import { createByControl, expireTokens, queueFault } from "./control";
import { backWithNotice, escapeHtml, noticeOf, page, when } from "./html";
import type { Sheet, Spreadsheet } from "./state";

const SHOWN_ROWS = 100;
const SHOWN_COLUMNS = 12;

function grid(sheet: Sheet) {
  const width = Math.min(SHOWN_COLUMNS, Math.max(1, ...sheet.rows.map((r) => r.length)));
  const head = `<tr><th scope="col"></th>${Array.from({ length: width }, (_, c) => `<th scope="col">${columnName(c)}</th>`).join("")}</tr>`;
  const body = sheet.rows
    .slice(0, SHOWN_ROWS)
    .map(
      (row, r) =>
        `<tr><th scope="row">${r + 1}</th>${Array.from({ length: width }, (_, c) => `<td>${escapeHtml(String(row[c] ?? ""))}</td>`).join("")}</tr>`,
    )
    .join("");
  return sheet.rows.length ? `<table><thead>${head}</thead><tbody>${body}</tbody></table>` : "<p>Empty.</p>";
}

function spreadsheetCard(ctx: GoogleContext, spreadsheet: Spreadsheet, full: boolean) {
  const link = `${ctx.options.publicPath}/spreadsheets/d/${spreadsheet.spreadsheetId}/edit`;
  const sheets = full ? spreadsheet.sheets : spreadsheet.sheets.slice(0, 1);
  return (
    `<section class="card"><h2><a href="${escapeHtml(link)}">${escapeHtml(spreadsheet.title)}</a></h2>` +
    `<p class="muted">${escapeHtml(spreadsheet.owner)} · ${spreadsheet.createdBy ? "made by the app" : spreadsheet.appAccess ? "chosen with the app's Picker" : "not given to the app"} · <code>${escapeHtml(spreadsheet.spreadsheetId)}</code> · ${when(spreadsheet.createdAt)}</p>` +
    sheets.map((sheet) => `<h3>${escapeHtml(sheet.title)}</h3>${grid(sheet)}`).join("") +
    `</section>`
  );
}

function forms(ctx: GoogleContext) {
  const base = ctx.options.publicPath;
  const users = [...ctx.state.users.values()];
  const owners = users.map((u) => `<option value="${escapeHtml(u.email)}">${escapeHtml(u.email)}</option>`).join("");
  const faultOptions = FAULTS.map((f) => `<option value="${f}">${f}</option>`).join("");
  return (
    `<section class="card"><h2>New spreadsheet</h2><form method="post" action="${escapeHtml(`${base}/console/spreadsheets`)}">` +
    `<label for="g-title">Title</label><input type="text" id="g-title" name="title" required>` +
    `<label for="g-owner">Owner</label><select id="g-owner" name="owner">${owners}</select>` +
    `<label for="g-rows">Rows (one a line, cells separated by commas)</label><textarea id="g-rows" name="rows" rows="5">Name,Phone\nWanjiku Kamau,0712 345 678</textarea>` +
    `<label class="choice"><input type="checkbox" name="appAccess" value="1"> Already chosen with the app's Picker (reachable with drive.file)</label>` +
    `<div class="actions"><button type="submit">Create</button></div></form></section>` +
    `<section class="card"><h2>Accounts and faults</h2>` +
    users
      .map(
        (u) =>
          `<form method="post" action="${escapeHtml(`${base}/console/users/${encodeURIComponent(u.email)}/expire-tokens`)}"><p>${escapeHtml(u.email)} <button type="submit" class="secondary">Expire its access tokens now</button></p></form>`,
      )
      .join("") +
    `<p>Magic values anywhere in a call: ${FAULTS.map((f) => `<code>${MAGIC_VALUES[f]}</code>`).join(", ")}. Pending: ${escapeHtml(ctx.faults.pending().join(", ") || "none")}.</p>` +
    `<form method="post" action="${escapeHtml(`${base}/console/faults`)}"><div class="actions"><label>Next calls answer <select name="fault">${faultOptions}</select></label>` +
    `<label>Times <input type="number" name="times" value="1" min="1" max="100"></label></div><div class="actions"><button type="submit">Queue</button></div></form>` +
    `<form method="post" action="${escapeHtml(`${base}/console/reset`)}"><div class="actions"><button type="submit" class="secondary">Reset the sandbox</button></div></form></section>`
  );
}

function callsCard(ctx: GoogleContext) {
  const rows = ctx.calls
    .list()
    .slice(0, 100)
    .map(
      (c) =>
        `<tr><td>${when(c.at)}</td><td><code>${escapeHtml(`${c.method} ${c.path}`)}</code></td><td>${c.status ?? ""}</td><td>${escapeHtml(c.account ?? "")}</td><td>${escapeHtml(c.fault ?? "")}</td></tr>`,
    )
    .join("");
  return `<section class="card"><h2>API calls</h2>${rows ? `<table><thead><tr><th scope="col">When</th><th scope="col">Call</th><th scope="col">Status</th><th scope="col">Account</th><th scope="col">Fault</th></tr></thead><tbody>${rows}</tbody></table>` : "<p>None yet.</p>"}</section>`;
}

/** The console (gated): spreadsheets with their cells, a form for a new one, faults, the API calls. */
export function consoleRouter(ctx: GoogleContext): Router {
  const router = Router({ caseSensitive: true });
  const base = ctx.options.publicPath;
  const urlencoded = express.urlencoded({ extended: false, limit: "64kb" });

  router.get("/", (req, res) => {
    const notice = noticeOf(req.query);
    page(res, {
      title: "Google sandbox",
      width: 1100,
      body:
        `<main><p class="brand">Google · sandbox</p><h1>Google Sheets sandbox</h1>` +
        (notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : "") +
        `<p class="muted">OAuth 2 consent and the Sheets API v4. JSON: <code>${escapeHtml(base)}/control/spreadsheets</code>.</p>` +
        [...ctx.state.spreadsheets.values()]
          .reverse()
          .map((s) => spreadsheetCard(ctx, s, false))
          .join("") +
        forms(ctx) +
        callsCard(ctx) +
        `</main>`,
    });
  });

  router.get("/spreadsheets/d/:id/edit", (req, res) => {
    const spreadsheet = ctx.state.spreadsheets.get(String(req.params.id));
    if (!spreadsheet)
      return page(res, {
        title: "Not found · Google sandbox",
        status: 404,
        body: `<main><h1>No such spreadsheet</h1><p><a href="${escapeHtml(base)}">Back</a></p></main>`,
      });
    page(res, {
      title: `${spreadsheet.title} · Google sandbox`,
      width: 1100,
      body: `<main><p class="brand">Google · sandbox</p><p><a href="${escapeHtml(base)}">All spreadsheets</a></p>${spreadsheetCard(ctx, spreadsheet, true)}</main>`,
    });
  });

  router.post("/console/spreadsheets", urlencoded, (req, res) => {
    const form = (req.body ?? {}) as Record<string, unknown>;
    const rows = String(form.rows ?? "")
      .split(/\r?\n/)
      .filter((line) => line.trim())
      .map((line) => line.split(",").map((cell) => cell.trim()));
    const made = createByControl(ctx, { title: form.title, owner: form.owner, values: rows, appAccess: form.appAccess === "1" });
    backWithNotice(res, base, "spreadsheet" in made ? `Created ${made.spreadsheet.title}.` : made.error);
  });

  router.post("/console/users/:email/expire-tokens", (req, res) => {
    const email = String(req.params.email);
    backWithNotice(
      res,
      base,
      ctx.state.users.has(email) ? `Expired ${expireTokens(ctx, email)} access tokens of ${email}.` : "No such account.",
    );
  });

  router.post("/console/faults", urlencoded, (req, res) => {
    const form = (req.body ?? {}) as Record<string, unknown>;
    backWithNotice(res, base, queueFault(ctx, form.fault, form.times) ? `Queued: ${String(form.fault)}.` : "Not a fault.");
  });

  router.post("/console/reset", (_req, res) => {
    ctx.state.reset();
    ctx.faults.clear();
    ctx.calls.reset();
    backWithNotice(res, base, "The sandbox is back to its test accounts.");
  });

  return router;
}
