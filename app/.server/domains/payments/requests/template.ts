import { rawQuery } from "../../../infrastructure/db/client";
import { createTemplate, type TemplateActor } from "../../templates";
import type { OutboundContent } from "../../messaging";
import type { MpesaShortcode } from "../shortcodes-access";
import type { PaymentsActor } from "../shortcodes";
import { PAYMENTS_REFUSALS, refusePayments } from "../refusals";
import { can } from "../../auth";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import type { TemplateInput, TemplateLanguage } from "~/lib/templates";
import { buttonId, customerLocale, howToPay, kes } from "./words";
import { m } from "~/paraglide/messages";
import type { Locale } from "~/paraglide/runtime";

/**
 * Outside the customer's 24-hour window a payment request goes as Jumbe's own UTILITY template
 * (decision 140): one name, one translation per language Jumbe speaks, submitted from Settings →
 * Payments through the templates domain and used once Meta approves it. Its two quick replies get
 * the request's button ids as payloads when sent, so a tap names the request as the reply buttons do.
 */
export const PAYMENT_TEMPLATE_NAME = "jumbe_payment_request";
const LANGUAGES: readonly (TemplateLanguage & Locale)[] = ["en", "sw", "fr"];

/** The body's five values, in order: business, amount, what for, how to pay by hand, reference. */
const PLACES = { business: "{{1}}", amount: "{{2}}", description: "{{3}}", how: "{{4}}", reference: "{{5}}" };

/** The template as submitted in one language (the example values are what Meta's reviewer reads). */
export function paymentTemplateInput(language: TemplateLanguage & Locale): TemplateInput {
  const options = { locale: language };
  return {
    name: PAYMENT_TEMPLATE_NAME,
    category: "UTILITY",
    language,
    headerFormat: "NONE",
    body: m.payreq_template_body(PLACES, options),
    bodyExamples: ["Duka la Mama Njeri", kes(1250, language), "Order 42", m.payreq_how_paybill({ number: "174379" }, options), "JR4K7Q2M"],
    buttons: [
      { type: "QUICK_REPLY", text: m.payreq_button_pay({}, options) },
      { type: "QUICK_REPLY", text: m.payreq_button_other({}, options) },
    ],
  };
}

export interface PaymentTemplateState {
  language: string;
  /** draft, held, pending, approved, rejected, paused, disabled (message_templates.status). */
  status: string;
  reason: string | null;
}

/** The payment template's translations this organisation has, and where each stands. */
export async function paymentTemplateStates(organizationId: string): Promise<PaymentTemplateState[]> {
  return rawQuery<PaymentTemplateState>(
    `select language, status, coalesce(rejection_reason, platform_rejection, last_error) as reason from message_templates
     where organization_id = $1 and name = $2 and deleting_at is null order by language`,
    [organizationId, PAYMENT_TEMPLATE_NAME],
  );
}

/**
 * Submits the payment template in every language the organisation does not have it in yet (a
 * translation already there, whatever its state, is left as it is). Answers the problems of the
 * first translation refused, or null.
 */
export async function createPaymentTemplates(actor: TemplateActor): Promise<string | null> {
  const have = new Set((await paymentTemplateStates(actor.organizationId)).map((t) => t.language));
  for (const language of LANGUAGES.filter((l) => !have.has(l))) {
    const saved = await createTemplate(actor, paymentTemplateInput(language), { submit: true });
    if (!saved.ok) return Object.values(saved.problems)[0] ?? null;
    if (saved.submitError) return saved.submitError;
  }
  return null;
}

/** Settings → Payments' "Create the payment template": owners and admins only (payments:manage). */
export async function submitPaymentTemplate(actor: PaymentsActor, meta?: RequestMeta) {
  if (!can(actor.role, "payments:manage")) throw refusePayments(403, "forbidden", PAYMENTS_REFUSALS.forbidden);
  return createPaymentTemplates({ organizationId: actor.organization.id, userId: actor.user.id, meta });
}

/**
 * The translation to send a customer: theirs when approved, else English, else any approved one.
 * Null when none is approved (the refusal says why: none made, waiting, or refused).
 */
export function chooseTemplateLanguage(states: readonly PaymentTemplateState[], customerLanguage: string | null) {
  const approved = states.filter((s) => s.status === "approved").map((s) => s.language);
  const wanted = customerLocale(customerLanguage);
  return approved.includes(wanted) ? wanted : approved.includes("en") ? "en" : (approved[0] ?? null);
}

/** The request as the payment template: its values and the two quick replies' payloads. */
export function requestTemplateMessage(
  request: { id: string; amountKes: number; description: string; reference: string },
  shortcode: MpesaShortcode,
  business: string,
  language: string,
): OutboundContent {
  const locale = customerLocale(language);
  return {
    kind: "template",
    template: {
      name: PAYMENT_TEMPLATE_NAME,
      language,
      parameters: [business, kes(request.amountKes, locale), request.description, howToPay(shortcode, locale), request.reference],
      buttons: [
        { index: 0, value: buttonId(request.id, "pay") },
        { index: 1, value: buttonId(request.id, "other") },
      ],
    },
  };
}

/**
 * The request as its SMS fallback says it (decision 159), in the customer's language: who asks, the
 * amount, what for, and how to pay by the M-Pesa menu (the Paybill and the reference as its account,
 * or the Till), so a customer WhatsApp cannot reach can still pay.
 */
export function requestSmsText(
  request: { amountKes: number; description: string; reference: string },
  shortcode: MpesaShortcode,
  business: string,
  language: string | null,
): string {
  const locale = customerLocale(language);
  const values = { business, amount: kes(request.amountKes, locale), description: request.description, reference: request.reference };
  return m.payreq_sms_body({ ...values, how: howToPay(shortcode, locale) }, { locale });
}

/** Why a request cannot go outside the window now, in the sender's words. */
export function templateRefusalText(states: readonly PaymentTemplateState[]) {
  if (!states.length) return m.payreq_refusal_template_missing();
  if (states.some((s) => ["pending", "held", "draft"].includes(s.status))) return m.payreq_refusal_template_waiting();
  return m.payreq_refusal_template_refused();
}
