import express, { Router, type Response } from "express";
import type { SandboxContext } from "./context";
import { brand, page } from "./html";
import { APP_NAME } from "./types";
import { escapeHtml, parseHttpUrl, scriptJson } from "./util";

interface DialogParams {
  clientId: string;
  configId: string;
  redirectUri: string;
  state: string | undefined;
  responseType: string;
  display: "page" | "popup";
  /**
   * Who is signing up (the app's opaque key for its tenant): stands for the Facebook user signed in
   * to Meta's popup, whose own businesses are the only ones offered. Absent: businesses nobody made
   * in the dialog (the console's and the control API's test businesses).
   */
  owner: string | undefined;
  /** Meta's `extras` (JSON): setup.business.name prefills the new business's name. */
  extras: string | undefined;
}

interface NewBusinessValues {
  businessName: string;
  verifiedName: string;
  phoneNumber: string;
}

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

function readParams(source: Record<string, unknown>): DialogParams {
  return {
    clientId: text(source.client_id) ?? "",
    configId: text(source.config_id) ?? "",
    redirectUri: text(source.redirect_uri) ?? "",
    state: text(source.state),
    responseType: text(source.response_type) ?? "code",
    display: text(source.display) === "popup" ? "popup" : "page",
    owner: text(source.sandbox_user)?.slice(0, 200) || undefined,
    extras: text(source.extras)?.slice(0, 4000) || undefined,
  };
}

/** The business name the app prefilled in `extras` (setup.business.name, as Meta's SDK takes it), or "". */
function prefilledName(p: DialogParams) {
  if (!p.extras) return "";
  try {
    const name = (JSON.parse(p.extras) as { setup?: { business?: { name?: unknown } } })?.setup?.business?.name;
    return typeof name === "string" ? name.trim().slice(0, 100) : "";
  } catch {
    return "";
  }
}

/** Why the dialog cannot open, as a sentence, or null when the request is acceptable. */
function problem(ctx: SandboxContext, p: DialogParams): string | null {
  if (!p.clientId) return "The request has no client_id (the Meta app id).";
  if (p.clientId !== ctx.options.appId)
    return `Invalid App ID: client_id "${p.clientId}" is not this sandbox's app (${ctx.options.appId}).`;
  if (ctx.options.configId && p.configId !== ctx.options.configId) {
    return p.configId
      ? `Unknown configuration: config_id "${p.configId}" is not the configured Embedded Signup configuration (${ctx.options.configId}).`
      : "The request has no config_id (the Embedded Signup configuration id).";
  }
  if (!p.redirectUri) return "The request has no redirect_uri.";
  if (!parseHttpUrl(p.redirectUri)) return `redirect_uri must be an absolute http or https URL; got "${p.redirectUri}".`;
  if (p.responseType !== "code")
    return `response_type must be "code" (Embedded Signup returns an authorization code); got "${p.responseType}".`;
  return null;
}

function withParams(base: string, params: Record<string, string | undefined>) {
  const url = new URL(base);
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== "") url.searchParams.append(key, value);
  return url.toString();
}

/** The Embedded Signup popup: pick or create a test business, then Finish or Cancel. */
export function dialogRouter(ctx: SandboxContext): Router {
  const router = Router({ caseSensitive: true });
  const form = express.urlencoded({ extended: false, limit: "64kb" });

  router.get("/dialog/oauth", (req, res) => {
    const params = readParams(req.query as Record<string, unknown>);
    const error = problem(ctx, params);
    if (error) return errorPage(res, error);
    renderForm(ctx, res, params);
  });

  router.post("/dialog/oauth", form, (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const params = readParams(body);
    const error = problem(ctx, params);
    if (error) return errorPage(res, error);
    if (text(body.action) === "cancel") return cancel(res, params);
    finish(ctx, res, params, body);
  });

  return router;
}

function errorPage(res: Response, message: string) {
  page(res, {
    status: 400,
    title: "Embedded Signup cannot open · Meta sandbox",
    body: `<main><div class="card">${brand}<h1>Sorry, something went wrong</h1><p class="error" role="alert">${escapeHtml(message)}</p>
<p class="muted">This is the local sandbox that plays Meta's Embedded Signup popup. Check the parameters the app sent to <code>dialog/oauth</code>: client_id, config_id, redirect_uri, state, response_type=code and display=popup|page.</p></div></main>`,
  });
}

function hiddenInputs(p: DialogParams) {
  const fields: [string, string | undefined][] = [
    ["client_id", p.clientId],
    ["config_id", p.configId],
    ["redirect_uri", p.redirectUri],
    ["state", p.state],
    ["response_type", p.responseType],
    ["display", p.display],
    ["sandbox_user", p.owner],
    ["extras", p.extras],
  ];
  return fields
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v!)}">`)
    .join("");
}

/**
 * A number the dialog offers: one of the signing-up user's own businesses (none of another tenant's),
 * never the demo accounts' that are connected to their demo tenants already.
 */
function offered(store: SandboxContext["store"], phoneId: string, owner: string | undefined) {
  const waba = store.wabas.get(store.phoneNumbers.get(phoneId)?.wabaId ?? "");
  const business = waba ? store.businesses.get(waba.businessId) : undefined;
  return !!business && !business.consoleDemo && !business.connectedDemo && business.owner === owner;
}

function renderForm(
  ctx: SandboxContext,
  res: Response,
  p: DialogParams,
  extra: { error?: string; values?: NewBusinessValues; selected?: string } = {},
) {
  const { store, options } = ctx;
  const numbers = [...store.phoneNumbers.values()].filter((phone) => offered(store, phone.id, p.owner));
  // By default a new business with a fresh number of its own; an earlier one of the user's is a choice.
  const selected = extra.selected ?? "new";
  const choices = numbers
    .map((phone, i) => {
      const waba = store.wabas.get(phone.wabaId);
      const business = waba ? store.businesses.get(waba.businessId) : undefined;
      const value = `phone:${phone.id}`;
      const label = `${business?.name ?? "?"} — WhatsApp Business Account “${waba?.name ?? "?"}” — ${phone.displayPhoneNumber} (${phone.verifiedName})`;
      return `<div class="choice"><input type="radio" name="asset" id="asset-${i}" value="${escapeHtml(value)}"${selected === value ? " checked" : ""}><label for="asset-${i}">${escapeHtml(label)}</label></div>`;
    })
    .join("");
  const v = extra.values ?? { businessName: prefilledName(p), verifiedName: "", phoneNumber: "" };
  const body = `<main><div class="card">${brand}
<h1>Connect your WhatsApp Business account to ${escapeHtml(APP_NAME)}</h1>
<p class="muted">Local sandbox of Meta's Embedded Signup. Nothing here talks to Meta: create a test business with a number of its own (or pick one of your earlier ones), then Finish. ${escapeHtml(APP_NAME)} receives an authorization code valid for ${Math.round(options.codeTtlMs / 1000)} seconds.</p>
${extra.error ? `<p class="error" role="alert" id="dialog-error">${escapeHtml(extra.error)}</p>` : ""}
<form method="post" action="${escapeHtml(options.publicPath)}/dialog/oauth">${hiddenInputs(p)}
<fieldset><legend>Choose the WhatsApp number to connect</legend>
<div class="choice"><input type="radio" name="asset" id="asset-new" value="new"${selected === "new" ? " checked" : ""}><label for="asset-new">Create a new test business</label></div>
${choices ? `<p class="muted">Or one of your earlier test businesses:</p>${choices}` : ""}
</fieldset>
<fieldset><legend>New test business (used when “Create a new test business” is chosen)</legend>
<label class="field" for="business_name">Business name</label>
<input type="text" id="business_name" name="business_name" maxlength="100" autocomplete="organization" value="${escapeHtml(v.businessName)}" placeholder="Duka la Mama Njeri">
<label class="field" for="verified_name">Display name</label>
<input type="text" id="verified_name" name="verified_name" maxlength="100" value="${escapeHtml(v.verifiedName)}" aria-describedby="verified_name_help" placeholder="Mama Njeri">
<small id="verified_name_help">The name customers see in WhatsApp (verified name). Blank: the business name.</small>
<label class="field" for="phone_number">Phone number</label>
<input type="tel" id="phone_number" name="phone_number" maxlength="24" autocomplete="off" value="${escapeHtml(v.phoneNumber)}" aria-describedby="phone_number_help" placeholder="+254 712 345 678">
<small id="phone_number_help">With the country code. Blank: a new Kenyan test number.</small>
</fieldset>
<div class="actions"><button type="submit" name="action" value="finish">Finish</button><button type="submit" name="action" value="cancel" class="secondary" formnovalidate>Cancel</button></div>
</form></div></main>`;
  page(res, { title: "Embedded Signup · Meta sandbox", body, status: extra.error ? 422 : 200 });
}

function finish(ctx: SandboxContext, res: Response, p: DialogParams, body: Record<string, unknown>) {
  const { store, events } = ctx;
  const asset = text(body.asset) ?? "";
  const values: NewBusinessValues = {
    businessName: (text(body.business_name) ?? "").trim().slice(0, 100),
    verifiedName: (text(body.verified_name) ?? "").trim().slice(0, 100),
    phoneNumber: (text(body.phone_number) ?? "").trim().slice(0, 24),
  };
  let target: { businessId: string; wabaId: string; phoneNumberId: string };
  if (asset === "new") {
    try {
      const created = store.createTestBusiness({
        businessName: values.businessName || undefined,
        verifiedName: values.verifiedName || undefined,
        displayPhoneNumber: values.phoneNumber || undefined,
        owner: p.owner,
      });
      target = created;
    } catch (error) {
      return renderForm(ctx, res, p, { error: error instanceof Error ? error.message : String(error), values, selected: "new" });
    }
  } else {
    const phone =
      asset.startsWith("phone:") && offered(store, asset.slice(6), p.owner) ? store.phoneNumbers.get(asset.slice(6)) : undefined;
    const waba = phone ? store.wabas.get(phone.wabaId) : undefined;
    if (!phone || !waba) return renderForm(ctx, res, p, { error: "Choose a phone number, or create a new test business.", values });
    target = { businessId: waba.businessId, wabaId: waba.id, phoneNumberId: phone.id };
  }
  const code = store.issueCode({ businessId: target.businessId, wabaIds: [target.wabaId] });
  events.partnerEvent(target.wabaId, "PARTNER_ADDED");
  const continueUrl = withParams(p.redirectUri, {
    code,
    shared_waba_id: target.wabaId,
    phone_number_id: target.phoneNumberId,
    state: p.state,
  });
  if (p.display === "page") return void res.redirect(303, continueUrl);

  const origin = new URL(p.redirectUri).origin;
  const messages = [
    {
      type: "WA_EMBEDDED_SIGNUP",
      event: "FINISH",
      data: { phone_number_id: target.phoneNumberId, waba_id: target.wabaId, business_id: target.businessId },
    },
    { type: "JUMBE_SANDBOX_AUTH_RESPONSE", authResponse: { code }, status: "connected" },
  ];
  const phone = store.phoneNumbers.get(target.phoneNumberId)!;
  popupPage(res, {
    title: "Signup finished · Meta sandbox",
    heading: "You're all set",
    text: `${phone.displayPhoneNumber} (${phone.verifiedName}) is shared with ${APP_NAME}.`,
    origin,
    messages,
    continueUrl,
  });
}

function cancel(res: Response, p: DialogParams) {
  const continueUrl = withParams(p.redirectUri, { error: "access_denied", error_reason: "user_denied", state: p.state });
  if (p.display === "page") return void res.redirect(303, continueUrl);
  popupPage(res, {
    title: "Signup cancelled · Meta sandbox",
    heading: "Signup cancelled",
    text: `Nothing was shared with ${APP_NAME}.`,
    origin: new URL(p.redirectUri).origin,
    messages: [
      { type: "WA_EMBEDDED_SIGNUP", event: "CANCEL", data: { current_step: "PHONE_NUMBER_SETUP" } },
      { type: "JUMBE_SANDBOX_AUTH_RESPONSE", authResponse: null, status: "unknown" },
    ],
    continueUrl,
  });
}

/**
 * What the popup shows after Finish or Cancel. With an opener, the nonce'd script posts each
 * message as a JSON string to the redirect URI's origin and closes the window; without one (or
 * with JavaScript off) the Continue link goes to the same URL display=page redirects to.
 */
function popupPage(
  res: Response,
  o: { title: string; heading: string; text: string; origin: string; messages: unknown[]; continueUrl: string },
) {
  const script = `(function(){var origin=${scriptJson(o.origin)};var messages=${scriptJson(o.messages)};var status=document.getElementById("popup-status");var opener=window.opener;if(!opener||opener.closed){if(status)status.textContent="This window was not opened by the app. Use Continue to go back.";return;}for(var i=0;i<messages.length;i++){opener.postMessage(JSON.stringify(messages[i]),origin);}if(status)status.textContent="Returning to the app…";window.close();})();`;
  page(res, {
    title: o.title,
    body: `<main><div class="card">${brand}<h1>${escapeHtml(o.heading)}</h1><p>${escapeHtml(o.text)}</p><p id="popup-status" class="muted" role="status"></p>
<p><a class="button" id="continue" href="${escapeHtml(o.continueUrl)}">Continue</a></p></div></main>`,
    script,
  });
}
