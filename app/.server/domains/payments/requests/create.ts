import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { rawQuery, type Executor } from "../../../infrastructure/db/client";
import type { MessageKey } from "../../../infrastructure/db/message-keys";
import { isRefusal } from "../../../infrastructure/refusal";
import { logMessageEvents, queueMessage, type OutboundContent } from "../../messaging";
import { shortcodeForOrganization, type MpesaShortcode } from "../shortcodes-access";
import { checkRequestInput, refusePaymentRequest } from "./input";
import { buttonId, customerLocale, howToPay, kes } from "./words";
import { paymentRequestById, type PaymentRequestView } from "./views";
import { chooseTemplateLanguage, paymentTemplateStates, requestSmsText, requestTemplateMessage, templateRefusalText } from "./template";
import { armAutomationFallback } from "../../sms";
import type { PaymentRequestSource } from "../../../infrastructure/db/schema";
import { m } from "~/paraglide/messages";

export interface RequestActor {
  organizationId: string;
  /** The member who asked (the inbox); null for the API and automations. */
  userId: string | null;
}

export interface RequestOrigin {
  source: PaymentRequestSource;
  sourceId?: string | null;
  /** The API's Idempotency-Key: the same key answers the first request again. */
  idempotencyKey?: string | null;
  /**
   * Run in the transaction that stores the request and its message (an order taking the request:
   * under the order's lock); a refusal thrown here stores and sends nothing.
   */
  withRequest?: (tx: Executor, requestId: string) => Promise<void>;
  /**
   * Run first in the message's transaction, before the request or anything of the conversation is
   * written: an automation's reply gate (automations/reply-gate.ts), which takes the conversation's
   * lock before its row, as a person holding it does. A throw stores and sends nothing.
   */
  gate?: (tx: Executor) => Promise<void>;
}

interface Target {
  conversation_id: string;
  contact_id: string;
  phone_number_id: string;
  phone: string | null;
  language: string | null;
  business: string;
}

/** The conversation of this organisation (another's is not found), with its customer. */
async function targetOf(organizationId: string, conversationId: string): Promise<Target> {
  const [target] = await rawQuery<Target>(
    `select v.id as conversation_id, v.contact_id, v.phone_number_id, c.phone, c.language, o.name as business
     from conversations v join contacts c on c.id = v.contact_id join organizations o on o.id = v.organization_id
     where v.organization_id = $1 and v.id = $2::uuid`,
    [organizationId, conversationId],
  );
  if (!target) throw refusePaymentRequest(404, "not_found", m.payreq_refusal_no_conversation(), "conversationId");
  return target;
}

/** The message that asks: what, how much, the buttons, and how to pay the shortcode by hand. */
export function requestMessage(
  request: { id: string; amountKes: number; description: string; reference: string },
  shortcode: MpesaShortcode,
  business: string,
  language: string | null,
): OutboundContent {
  const locale = customerLocale(language);
  return {
    kind: "interactive",
    interactive: {
      type: "button",
      body: m.payreq_ask_body(
        {
          business,
          amount: kes(request.amountKes, locale),
          description: request.description,
          how: howToPay(shortcode, locale),
          reference: request.reference,
        },
        { locale },
      ),
      buttons: [
        { id: buttonId(request.id, "pay"), title: m.payreq_button_pay({}, { locale }) },
        { id: buttonId(request.id, "other"), title: m.payreq_button_other({}, { locale }) },
      ],
    },
  };
}

/**
 * Asks the conversation's customer to pay: the request and its message in one transaction (the
 * message's): reply buttons inside the 24-hour window (decision 137), the approved payment template
 * outside it (decision 140), refused with a clear sentence while there is none or the wallet cannot pay.
 */
export async function createPaymentRequest(
  actor: RequestActor,
  conversationId: string,
  raw: Parameters<typeof checkRequestInput>[0],
  origin: RequestOrigin,
): Promise<PaymentRequestView> {
  const input = checkRequestInput(raw);
  if (origin.idempotencyKey) {
    const earlier = await requestByIdempotencyKey(actor.organizationId, origin.idempotencyKey);
    if (earlier) return earlier;
  }
  const target = await targetOf(actor.organizationId, conversationId);
  const shortcode = await shortcodeForOrganization(actor.organizationId, input.shortcodeId);
  if (!shortcode) throw refusePaymentRequest(422, "unknown_shortcode", m.payreq_refusal_no_shortcode(), "shortcodeId");
  if (!target.phone) throw refusePaymentRequest(422, "no_phone", m.payreq_refusal_no_phone(), "conversationId");
  const id = randomUUID();
  const insert = async (tx: Executor, message: MessageKey) => {
    if (origin.gate) await origin.gate(tx);
    await tx.execute(sql`
      insert into payment_requests (id, organization_id, shortcode_id, contact_id, conversation_id, amount_kes, description, reference,
                                    expires_at, message_id, created_by, source, source_id, idempotency_key)
      values (${id}, ${actor.organizationId}, ${shortcode.id}, ${target.contact_id}, ${target.conversation_id}, ${input.amountKes},
              ${input.description}, ${input.reference}, now() + make_interval(mins => ${input.expiresInMinutes}), ${message.id},
              ${actor.userId}, ${origin.source}, ${origin.sourceId ?? null}, ${origin.idempotencyKey ?? null})`);
    await tx.execute(sql`update conversations set last_message_at = greatest(last_message_at, now()) where id = ${target.conversation_id}`);
    await logMessageEvents(tx, "message", [message]);
    if (origin.withRequest) await origin.withRequest(tx, id);
  };
  const send = (content: OutboundContent, after?: (tx: Executor, messageId: string) => Promise<unknown>) =>
    queueMessage(actor.organizationId, {
      to: target.phone!,
      from: target.phone_number_id,
      content,
      // Who sent it, as the thread labels it: a member, the API, or an automation (a flow, the order rule, a Shopify order).
      source: messageSourceOf(origin.source, actor.userId),
      sentBy: actor.userId ?? undefined,
      onQueued: async (tx, message) => {
        await insert(tx, message);
        if (after) await after(tx, message.id);
      },
    });
  try {
    try {
      await send(requestMessage({ id, ...input }, shortcode, target.business, target.language));
    } catch (error) {
      if (!(isRefusal(error, "send") && error.code === "outside_service_window")) throw error;
      // Outside the window: the payment template, once approved (decision 140).
      const template = await outsideWindowMessage(actor.organizationId, { id, ...input }, shortcode, target);
      // A customer WhatsApp cannot reach gets the request by SMS, when the business set it (decision 159).
      await send(template, (tx, messageId) =>
        armAutomationFallback(tx, {
          organizationId: actor.organizationId,
          messageId,
          automation: "payment_request",
          values: template.kind === "template" ? (template.template.parameters ?? []) : [],
          messageText: requestSmsText(input, shortcode, target.business, target.language),
        }),
      );
    }
  } catch (error) {
    // Two API calls with one key at once: the first one's request is the answer.
    if (origin.idempotencyKey && isUniqueViolation(error)) {
      const earlier = await requestByIdempotencyKey(actor.organizationId, origin.idempotencyKey);
      if (earlier) return earlier;
    }
    throw asRequestRefusal(error);
  }
  return (await paymentRequestById(actor.organizationId, id))!;
}

/** The payment template for this customer, or the refusal that says why it cannot go yet. */
async function outsideWindowMessage(
  organizationId: string,
  request: Parameters<typeof requestTemplateMessage>[0],
  shortcode: MpesaShortcode,
  target: Target,
): Promise<OutboundContent> {
  const states = await paymentTemplateStates(organizationId);
  const language = chooseTemplateLanguage(states, target.language);
  if (!language) throw refusePaymentRequest(422, "outside_service_window", templateRefusalText(states), "conversationId");
  return requestTemplateMessage(request, shortcode, target.business, language);
}

/** A template send's refusals (not approved for this number, no money in the wallet) in the request's words. */
function asRequestRefusal(error: unknown): unknown {
  if (!isRefusal(error, "send")) return error;
  if (error.code === "insufficient_balance") return refusePaymentRequest(402, "insufficient_balance", m.payreq_refusal_no_balance());
  if (error.code === "template_not_found" || error.code === "template_not_approved")
    return refusePaymentRequest(422, "outside_service_window", m.payreq_refusal_template_waiting(), "conversationId");
  return error;
}

function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause)
    if ((e as { code?: unknown }).code === "23505") return true;
  return false;
}

async function requestByIdempotencyKey(organizationId: string, key: string) {
  const [row] = await rawQuery<{ id: string }>(`select id from payment_requests where organization_id = $1 and idempotency_key = $2`, [
    organizationId,
    key,
  ]);
  return row ? paymentRequestById(organizationId, row.id) : null;
}

/** The message's sender as the thread labels it, from what asked for the money. */
function messageSourceOf(source: PaymentRequestSource, userId: string | null): "api" | "inbox" | "automation" {
  if (source === "api") return "api";
  // A cart's request is a member's click, or the order automation's (no member).
  return source === "flow" || source === "automation" || source === "shopify" || !userId ? "automation" : "inbox";
}
