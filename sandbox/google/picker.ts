import express, { Router, type Request, type Response } from "express";
import type { GoogleContext } from "./context";
import { escapeHtml, page, when } from "./html";
import { DRIVE_FILE_SCOPE } from "./oauth";

const forms = express.urlencoded({ extended: false, limit: "16kb" });
const SPREADSHEET_MIME = "application/vnd.google-apps.spreadsheet";

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** The origin the answer is posted to (the Picker's `setOrigin`): an http(s) origin, nothing more. */
function originOf(value: unknown) {
  const given = text(value);
  if (!given || !URL.canParse(given)) return undefined;
  const url = new URL(given);
  return /^https?:$/.test(url.protocol) && url.origin === given.replace(/\/+$/, "") ? url.origin : undefined;
}

interface PickerRequest {
  token: string;
  account: string;
  origin: string;
}

/** The user behind the OAuth token the app gave the Picker (`setOAuthToken`), or Google's refusal page. */
function pickerRequest(ctx: GoogleContext, req: Request, res: Response): PickerRequest | undefined {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const origin = originOf(body.origin);
  const token = text(body.oauth_token);
  const check = token ? ctx.state.grants.checkAccess(token) : { state: "unknown" as const };
  const problem = !origin
    ? "The Picker needs the page's origin (setOrigin)."
    : check.state !== "valid"
      ? "The Picker needs a live OAuth token of the user (setOAuthToken)."
      : !check.record.scopes.includes(DRIVE_FILE_SCOPE) && !check.record.scopes.some((s) => s.includes("/auth/drive"))
        ? "The OAuth token has no Drive scope: the Picker cannot grant the app a file."
        : undefined;
  if (problem || check.state !== "valid" || !token || !origin) {
    page(res, {
      title: "Google Picker · sandbox",
      status: 400,
      body: `<main><p class="brand">Google · sandbox</p><h1>The file picker cannot open</h1><p class="error" role="alert">${escapeHtml(problem ?? "")}</p></main>`,
    });
    return undefined;
  }
  return { token, account: check.record.account, origin };
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;

/** The Picker's answer handed to the page that opened it, as Google's callback receives it; then closed. */
function answerPage(res: Response, request: PickerRequest, data: Record<string, unknown>, words: string) {
  const nonce = escapeHtml(String(res.locals.cspNonce ?? ""));
  const payload = JSON.stringify({ data, origin: request.origin }).replace(/</g, "\\u003c");
  page(res, {
    title: "Google Picker · sandbox",
    body:
      `<main><p class="brand">Google · sandbox</p><h1>Google Picker</h1><p role="status">${escapeHtml(words)}</p></main>` +
      `<script type="application/json" id="picker-answer">${payload}</script>` +
      `<script nonce="${nonce}">(function(){var a=JSON.parse(document.getElementById("picker-answer").textContent);` +
      `if(window.opener){window.opener.postMessage(a.data,a.origin);window.close();}})();</script>`,
  });
}

/**
 * A stand-in for Google's Picker (the `google.picker` widget a page loads from apis.google.com): the
 * page opens it with the user's OAuth token and its origin (a form posted to a new window), it lists
 * the user's spreadsheets, and choosing one grants the app drive.file access to that file and posts
 * Google's callback data (`{action: "picked", docs: [{id, name, url, mimeType, serviceId}]}`, or
 * `{action: "cancel"}`) to the opener at that origin. Without JavaScript, the chosen file's id is shown.
 */
export function pickerRouter(ctx: GoogleContext): Router {
  const router = Router({ caseSensitive: true });

  router.get("/picker", (_req, res) =>
    page(res, {
      title: "Google Picker · sandbox",
      status: 400,
      body: `<main><p class="brand">Google · sandbox</p><h1>The file picker cannot open</h1><p class="error" role="alert">Open it from the app: it posts the user's OAuth token and its origin here.</p></main>`,
    }),
  );

  router.post("/picker", forms, (req, res) => {
    const request = pickerRequest(ctx, req, res);
    if (!request) return;
    const sheets = [...ctx.state.spreadsheets.values()].filter((s) => s.owner === request.account).reverse();
    const action = escapeHtml(`${ctx.options.publicPath}/picker/pick`);
    const common = hidden("oauth_token", request.token) + hidden("origin", request.origin);
    const list = sheets.length
      ? `<form method="post" action="${action}" class="card">${common}<fieldset><legend>Spreadsheets in ${escapeHtml(request.account)}'s Drive</legend>` +
        sheets
          .map(
            (s, i) =>
              `<label class="choice"><input type="radio" name="spreadsheet" value="${escapeHtml(s.spreadsheetId)}"${i === 0 ? " checked" : ""}> <span><strong>${escapeHtml(s.title)}</strong> <small>${when(s.createdAt)}</small></span></label>`,
          )
          .join("") +
        `</fieldset><div class="actions"><button type="submit" name="action" value="picked">Select</button><button type="submit" class="secondary" name="action" value="cancel">Cancel</button></div></form>`
      : `<p>No spreadsheets in this Drive.</p><form method="post" action="${action}">${common}<button type="submit" class="secondary" name="action" value="cancel">Cancel</button></form>`;
    page(res, {
      title: "Select a file · Google Picker · sandbox",
      body: `<main><p class="brand">Google · sandbox</p><h1>Select a file</h1>${list}</main>`,
    });
  });

  router.post("/picker/pick", forms, (req, res) => {
    const request = pickerRequest(ctx, req, res);
    if (!request) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body.action !== "picked") return answerPage(res, request, { action: "cancel" }, "Cancelled.");
    const spreadsheet = ctx.state.spreadsheets.get(String(body.spreadsheet ?? ""));
    if (!spreadsheet || spreadsheet.owner !== request.account)
      return page(res, {
        title: "Google Picker · sandbox",
        status: 404,
        body: `<main><p class="brand">Google · sandbox</p><h1>No such file</h1><p class="error" role="alert">That file is not in ${escapeHtml(request.account)}'s Drive.</p></main>`,
      });
    // Choosing a file with the app's Picker is the user's grant of that one file to the app.
    spreadsheet.appAccess = true;
    ctx.state.changed();
    const url = `${req.protocol}://${req.get("host")}${ctx.options.publicPath}/spreadsheets/d/${spreadsheet.spreadsheetId}/edit`;
    answerPage(
      res,
      request,
      {
        action: "picked",
        docs: [
          {
            id: spreadsheet.spreadsheetId,
            name: spreadsheet.title,
            url,
            mimeType: SPREADSHEET_MIME,
            serviceId: "spread",
            type: "document",
            lastEditedUtc: spreadsheet.createdAt,
          },
        ],
      },
      `Selected “${spreadsheet.title}” (${spreadsheet.spreadsheetId}). The app may now open it.`,
    );
  });

  return router;
}
