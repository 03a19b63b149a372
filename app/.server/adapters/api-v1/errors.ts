import { env } from "../../infrastructure/config/env";

/**
 * The public API's errors, once (decision 052): every code /api/v1 can answer, with its one HTTP
 * status, what it means and what to do. The router answers a code with the status written here,
 * the OpenAPI document and the Developers page publish this list, and each endpoint's documented
 * codes (errorCodesOf) are checked against the real answers by tests/integration/api-error-catalogue.test.ts.
 */
export const ERROR_CATALOGUE = {
  invalid_request: {
    status: 400,
    meaning: "The query, a path parameter, a header or the body is not valid.",
    action: "Correct the request: the message names the field and the problem.",
  },
  missing_api_key: {
    status: 401,
    meaning: "The request has no API key.",
    action: "Send your key from the Developers page as the header Authorization: Bearer <key>.",
  },
  invalid_api_key: {
    status: 401,
    meaning: "The API key is not valid, or it was revoked when someone regenerated it.",
    action: "Copy the current key from the Developers page.",
  },
  insufficient_balance: {
    status: 402,
    meaning: "Your prepaid wallet cannot pay for this message.",
    action: "Top up on the Billing page, then send again.",
  },
  account_suspended: {
    status: 403,
    meaning: "Your organisation is suspended, so its API key does nothing.",
    action: "Contact Jumbe support to have the organisation reinstated; the key works again once it is.",
  },
  permission_denied: {
    status: 403,
    meaning:
      "The key acts with the role of the member who made it (or last regenerated it), and that role does not include the permission the endpoint needs; the answer names it in its permission field.",
    action:
      "Ask an owner or admin to regenerate the key on the Developers page (it then acts with their role), or to give that member a role with the permission.",
  },
  not_found: {
    status: 404,
    meaning:
      "Nothing of yours has this id: unknown, malformed, deleted or another organisation's (the message says which id: in the path or in the body). An unknown path answers it too.",
    action: "Check the id: use one from a list or from creating the thing.",
  },
  method_not_allowed: {
    status: 405,
    meaning: "The path exists but not with this method.",
    action: "Use a method the Allow header lists.",
  },
  no_whatsapp_account: {
    status: 409,
    meaning: "No WhatsApp Business account is connected.",
    action: "Connect one on the WhatsApp page, then try again.",
  },
  no_whatsapp_number: {
    status: 409,
    meaning: "No WhatsApp number is connected to send from.",
    action: "Connect a number on the WhatsApp page.",
  },
  number_not_registered: {
    status: 409,
    meaning: "The number is not registered for the Cloud API yet.",
    action: "Finish registering it on the WhatsApp page.",
  },
  whatsapp_reconnect_needed: {
    status: 409,
    meaning: "Meta refused Jumbe's access to the WhatsApp account.",
    action: "Reconnect the account on the WhatsApp page.",
  },
  organization_closing: {
    status: 409,
    meaning: "Your organisation is closing and sends nothing.",
    action: "Its owner can reopen it in Account Settings before its data is erased.",
  },
  template_exists: {
    status: 409,
    meaning: "A template with this name and language exists for the account.",
    action: "Choose another name, or delete the old template first.",
  },
  erased_contact: {
    status: 409,
    meaning: "The number was erased at the person's request.",
    action: "Add them again only with consent opted_in and its evidence.",
  },
  duplicate_phone: {
    status: 409,
    meaning: "Another contact has this number.",
    action: "Merge the two contacts instead.",
  },
  campaign_state: {
    status: 409,
    meaning: "The campaign is not in a state that allows this change (for example pausing one that has ended).",
    action: "Read the campaign's status first.",
  },
  payment_request_closed: {
    status: 409,
    meaning: "The payment request is no longer open: it was paid, it expired or it was cancelled (cancelling it twice answers this too).",
    action: "Read the request's status first; a paid one's money is settled with the customer outside Jumbe.",
  },
  prompt_on_phone: {
    status: 409,
    meaning: "An M-Pesa prompt of this request is on the customer's phone, and their PIN may be going in: M-Pesa's answer decides.",
    action:
      "Wait for the prompt's answer (a minute or two, or the payment_request.paid or .failed webhook), then cancel if it is still open.",
  },
  rule_limit: {
    status: 409,
    meaning: "The organisation has as many keyword rules as it may.",
    action: "Delete a rule it no longer needs, then add the new one.",
  },
  knowledge_limit: {
    status: 409,
    meaning: "The organisation's knowledge base has as many articles as it may.",
    action: "Delete an article it no longer needs, or join short ones, then add the new one.",
  },
  flow_limit: {
    status: 409,
    meaning: "The organisation has as many chatbot flows as it may, or the flow as many steps.",
    action: "Delete a flow (or a step) it no longer needs, then add the new one.",
  },
  hook_exists: {
    status: 409,
    meaning: "This target URL is already subscribed to this event.",
    action: "Use the hook you have (GET /api/v1/hooks lists them), or unsubscribe it first.",
  },
  hook_limit: {
    status: 409,
    meaning: "The organisation has as many REST hooks as it may.",
    action: "Unsubscribe hooks no longer used (a Zap turned off), then subscribe again.",
  },
  idempotency_conflict: {
    status: 409,
    meaning: "The Idempotency-Key was used in the last 24 hours for a different request.",
    action: "Use a new key for a new request.",
  },
  idempotency_in_progress: {
    status: 409,
    meaning: "The first request with this Idempotency-Key is still being handled after 10 seconds.",
    action: "Repeat the request in a moment to get its answer.",
  },
  payload_too_large: {
    status: 413,
    meaning: "The body is over the endpoint's limit (64 KB for JSON).",
    action: "Send less: a file under its limit, or an audience by tags or a segment.",
  },
  media_too_large: {
    status: 413,
    meaning: "The file is over WhatsApp's limit for its type.",
    action: "Send a smaller file.",
  },
  unsupported_media_type: {
    status: 415,
    meaning: "The body's Content-Type is not one the endpoint takes, or the file's bytes are not of a type it takes.",
    action: "Send one of the types the endpoint lists, with its true Content-Type.",
  },
  invalid_phone_number: {
    status: 422,
    meaning: "The phone number is not a real number.",
    action: "Send it in international form, such as +254711000001.",
  },
  template_not_found: {
    status: 422,
    meaning: "No template of yours has this name and language.",
    action: "Check the name and language, or create the template.",
  },
  template_not_approved: {
    status: 422,
    meaning: "The template is not approved by Meta.",
    action: "Wait for Meta's approval, or use an approved template.",
  },
  parameter_mismatch: {
    status: 422,
    meaning: "The template's parameters do not match its placeholders.",
    action: "Send one value for each placeholder, in order.",
  },
  outside_service_window: {
    status: 422,
    meaning: "The customer has not written in the last 24 hours, so only a template can be sent.",
    action: "Send an approved template instead.",
  },
  unknown_shortcode: {
    status: 422,
    meaning: "The organisation has no such M-Pesa paybill or till (or none at all) to be paid to.",
    action: "Connect a shortcode in Settings, or give the id of one of yours (or none, for your default).",
  },
  no_phone: {
    status: 422,
    meaning: "The conversation's customer is known only by their WhatsApp username, with no number to ask or push a prompt to.",
    action: "Ask in the conversation for their M-Pesa number, or use a conversation with a number.",
  },
  not_opted_in: {
    status: 422,
    meaning: "A marketing template to someone who has not opted in.",
    action: "Record their opt-in first, or send a utility template.",
  },
  media_type_mismatch: {
    status: 422,
    meaning: "The file does not fit the message or header (a PDF for an image).",
    action: "Send a file of the kind the message needs.",
  },
  unknown_attribute: {
    status: 422,
    meaning: "A custom field is not one of your organisation's.",
    action: "Create the field on the Contacts page first, or remove it.",
  },
  invalid_attribute: {
    status: 422,
    meaning: "A custom field's value is not of its type.",
    action: "Send a value of the field's type.",
  },
  invalid_name: { status: 422, meaning: "The contact's name is not valid.", action: "Send a shorter, plain name." },
  invalid_tag: { status: 422, meaning: "A tag is not valid.", action: "Send short tags of letters, numbers and spaces." },
  invalid_consent: {
    status: 422,
    meaning: "The consent's source is not one of the list, or its evidence is too long.",
    action: "Use a listed source and shorter evidence.",
  },
  invalid_campaign: { status: 422, meaning: "The campaign's name is not valid.", action: "Give it a name of up to 100 characters." },
  invalid_parameters: {
    status: 422,
    meaning: "A placeholder, button or media header has no usable value.",
    action: "Map each placeholder to a field with a fallback, or give a value.",
  },
  invalid_audience: { status: 422, meaning: "The audience is not valid.", action: "Correct it as the message says." },
  empty_audience: {
    status: 422,
    meaning: "Nobody in the audience can receive the campaign.",
    action: "Choose another audience, or save the campaign as a draft.",
  },
  invalid_schedule: {
    status: 422,
    meaning: "The scheduled time is past or more than a year ahead.",
    action: "Choose a time within the next year.",
  },
  invalid_automation: {
    status: 422,
    meaning:
      "A keyword rule, the welcome or away message, the business hours, the assistant's settings or a knowledge article break a rule of the Automations pages; the answer's field names where (a keyword, the threshold, a time, the base URL).",
    action: "Correct what the field names, as the message says.",
  },
  invalid_hook: {
    status: 422,
    meaning:
      "A REST hook's target URL is not acceptable: not https, with a user name or password, or pointing to a private, loopback or link-local address.",
    action: "Give a public https URL, as the message says.",
  },
  sms_not_connected: {
    status: 409,
    meaning: "The organisation has no Africa's Talking account connected, so no SMS can be sent.",
    action: "Connect one in Settings → SMS, then send again.",
  },
  opted_out: {
    status: 409,
    meaning: "The customer opted out (STOP, ACHA… by WhatsApp or SMS): nothing more is sent to them.",
    action: "Do not send; they opt back in by writing START or ANZA.",
  },
  quiet_hours: {
    status: 409,
    meaning: "No SMS from 20:00 to 08:00 Nairobi time, unless the customer wrote in the last 24 hours.",
    action: "Send again after 08:00 Nairobi time.",
  },
  rate_limited: {
    status: 429,
    meaning: "The key made more requests in a minute than it may.",
    action: "Wait the seconds the Retry-After header gives, then repeat.",
  },
  internal_error: {
    status: 500,
    meaning: "Something went wrong on Jumbe's side.",
    action: "Try again; if it keeps failing, contact support.",
  },
  storage_unavailable: {
    status: 503,
    meaning: "Jumbe's file store cannot be reached for now; nothing was stored.",
    action: "Wait the seconds the Retry-After header gives, then send the file again.",
  },
  service_unavailable: {
    status: 503,
    meaning: "Jumbe's database cannot be reached for a moment (maintenance or an outage).",
    action:
      "Wait the seconds the Retry-After header gives, then repeat the request; repeat a POST with the same Idempotency-Key, so that it is done once.",
  },
  meta_error: {
    status: 502,
    meaning: "Meta refused or failed the request Jumbe made for you.",
    action: "Read Meta's words in the message, correct what it names, and try again.",
  },
} as const satisfies Record<string, { status: number; meaning: string; action: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CATALOGUE, code);

/** The catalogue as a list, by status then code: the OpenAPI document and the Developers page show it. */
export function errorCatalogue() {
  return ERROR_CODES.map((code) => ({ code, ...ERROR_CATALOGUE[code] })).sort(
    (a, b) => a.status - b.status || a.code.localeCompare(b.code),
  );
}

/**
 * An answer's code and status as the catalogue has them. Any 404 is the one not-found code,
 * whichever refusal gave it (the resources' own codes of before decision 052: contact_not_found,
 * campaign_not_found, media_not_found, message_not_found, and invalid_audience for an unknown
 * segment); otherwise a code answers the catalogue's status. A code the catalogue does not know
 * keeps its status (the tests refuse it: tests/support/api-answer-check.ts).
 */
export function cataloguedError(status: number, code: string): { status: number; code: string } {
  if (status === 404 || /^(contact|campaign|media|message)_not_found$/.test(code)) return { status: 404, code: "not_found" };
  if (isErrorCode(code)) return { status: ERROR_CATALOGUE[code].status, code };
  return { status, code };
}

/**
 * A code's entry in the published catalogue (the Developers page's Errors, one row a code): an
 * error answer's `type` (RFC 9457), so a client or a person reading it finds what it means and what to do.
 */
export const errorTypeUrl = (code: string) => `${env().APP_URL}/developers/errors#error-${encodeURIComponent(code)}`;

/**
 * An error answer's document (RFC 9457, application/problem+json): `type` is the code's entry in the
 * published catalogue, `title` its meaning, `status` the catalogue's, `detail` what went wrong here;
 * with `code` and `message` (the same as detail) as the API has always answered. `extra` adds fields
 * (permission_denied's permission, the request's id).
 */
export function problemDocument(status: number, code: string, message: string, extra: Record<string, string> = {}) {
  const answered = cataloguedError(status, code);
  return {
    type: errorTypeUrl(answered.code),
    title: isErrorCode(answered.code) ? ERROR_CATALOGUE[answered.code].meaning : "Error.",
    status: answered.status,
    detail: message,
    code: answered.code,
    message,
    ...extra,
  };
}

/** The catalogue's code for a status Express answers on the API's paths before the API runs (a body too large, a refused method, an outage). */
const EXPRESS_CODES: Record<number, ErrorCode> = {
  400: "invalid_request",
  404: "not_found",
  405: "method_not_allowed",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
  500: "internal_error",
  503: "service_unavailable",
};

/**
 * What Express answers on /api/v1 when it refuses a request itself, as the API's own problem: the
 * code given, or the catalogue's code for the status; a status the catalogue has no code for is
 * answered as `invalid_request` (a 4xx: a timed-out or unterminated body, a malformed header) or
 * `internal_error` (a 5xx), so every answer of the API is one of its published codes.
 */
export function expressProblem(status: number, message: string, requestId: string, code?: string) {
  const known = code && isErrorCode(code) ? code : EXPRESS_CODES[status];
  return problemDocument(status, known ?? (status >= 500 ? "internal_error" : "invalid_request"), message, { requestId });
}
