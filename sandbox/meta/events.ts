import type { SandboxStore, Template } from "./state";
import type { WebhookSender } from "./webhooks";
import { digitsOnly, unixSeconds } from "./util";

/** Builds Meta's webhook payloads from sandbox state and queues them. Throws readable Errors on bad input. */
export class WebhookEvents {
  constructor(
    private readonly store: SandboxStore,
    private readonly sender: WebhookSender,
    private readonly now: () => number,
  ) {}

  private number(phoneNumberId: unknown) {
    const number = typeof phoneNumberId === "string" ? this.store.phoneNumbers.get(phoneNumberId) : undefined;
    if (!number) throw new Error(`Unknown phone number id ${String(phoneNumberId)}.`);
    return number;
  }

  private metadata(phoneNumberId: string) {
    const number = this.number(phoneNumberId);
    return { display_phone_number: digitsOnly(number.displayPhoneNumber), phone_number_id: number.id };
  }

  /** A customer message (built by buildInbound) as a `messages` change; system messages carry no contacts. */
  inbound(phoneNumberId: string, built: { contacts?: unknown[]; message: unknown }) {
    const number = this.number(phoneNumberId);
    this.sender.enqueue(number.wabaId, {
      field: "messages",
      value: {
        messaging_product: "whatsapp",
        metadata: this.metadata(number.id),
        ...(built.contacts ? { contacts: built.contacts } : {}),
        messages: [built.message],
      },
    });
  }

  /** One status of a message the business sent (statuses[] holds it alone, as Meta's usually do). */
  messageStatus(phoneNumberId: string, status: Record<string, unknown>) {
    const number = this.number(phoneNumberId);
    this.sender.enqueue(number.wabaId, {
      field: "messages",
      value: { messaging_product: "whatsapp", metadata: this.metadata(number.id), statuses: [status] },
    });
  }

  /** A failed status's error, as status webhooks carry it: {code, title, message, error_data.details, href}. */
  failureError(code: number) {
    const known = FAILURE_TEXT[code] ?? { title: "Message failed to send", details: "The sandbox failed this message on request." };
    return {
      code,
      title: known.title,
      message: known.title,
      error_data: { details: known.details },
      href: "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/",
    };
  }

  status(input: { phoneNumberId: string; wamid: string; status: string; recipientId: string; errorCode?: number }) {
    const number = this.number(input.phoneNumberId);
    if (!["sent", "delivered", "read", "failed"].includes(input.status)) throw new Error("status must be sent, delivered, read or failed.");
    if (typeof input.wamid !== "string" || !input.wamid.trim()) throw new Error("wamid must not be empty.");
    const recipient = digitsOnly(String(input.recipientId ?? ""));
    if (!/^\d{7,15}$/.test(recipient)) throw new Error("recipientId must be the customer's phone number in digits.");
    if (input.errorCode !== undefined && !Number.isInteger(input.errorCode)) throw new Error("errorCode must be a whole number.");
    const status: Record<string, unknown> = {
      id: input.wamid.trim(),
      status: input.status,
      timestamp: String(unixSeconds(this.now())),
      recipient_id: recipient,
    };
    if (input.status === "sent" || input.status === "delivered") {
      status.pricing = { billable: true, pricing_model: "PMP", type: "regular", category: "utility" };
    }
    if (input.status === "failed") status.errors = [this.failureError(input.errorCode ?? 131026)];
    this.sender.enqueue(number.wabaId, {
      field: "messages",
      value: { messaging_product: "whatsapp", metadata: this.metadata(number.id), statuses: [status] },
    });
  }

  quality(input: { phoneNumberId: string; event: string; currentLimit?: string }) {
    const number = this.number(input.phoneNumberId);
    if (!QUALITY_EVENTS.includes(input.event)) throw new Error(`event must be one of ${QUALITY_EVENTS.join(", ")}.`);
    if (input.currentLimit !== undefined && !/^TIER_[A-Z0-9]+$/.test(input.currentLimit))
      throw new Error('currentLimit must look like "TIER_2K".');
    switch (input.event) {
      case "FLAGGED":
        number.qualityRating = "RED";
        break;
      case "UNFLAGGED":
        number.qualityRating = "GREEN";
        break;
      case "THROUGHPUT_UPGRADE":
        number.throughput = "HIGH";
        break;
      default:
        if (input.currentLimit) number.messagingLimit = input.currentLimit;
    }
    this.store.changed();
    const now = this.now();
    this.sender.enqueue(
      number.wabaId,
      {
        field: "phone_number_quality_update",
        value: {
          display_phone_number: digitsOnly(number.displayPhoneNumber),
          event: input.event,
          current_limit: input.currentLimit ?? number.messagingLimit,
        },
      },
      unixSeconds(now),
    );
  }

  accountUpdate(input: { wabaId: string; event: string }) {
    const waba = typeof input.wabaId === "string" ? this.store.wabas.get(input.wabaId) : undefined;
    if (!waba) throw new Error(`Unknown WABA ${String(input.wabaId)}.`);
    if (typeof input.event !== "string" || !/^[A-Z_]{2,64}$/.test(input.event))
      throw new Error('event must be an upper-case event name such as "VERIFIED_ACCOUNT".');
    if (input.event === "PARTNER_ADDED" || input.event === "PARTNER_REMOVED") return this.partnerEvent(waba.id, input.event);
    const number = [...this.store.phoneNumbers.values()].find((p) => p.wabaId === waba.id);
    this.sender.enqueue(
      waba.id,
      {
        field: "account_update",
        value: number ? { phone_number: digitsOnly(number.displayPhoneNumber), event: input.event } : { event: input.event },
      },
      unixSeconds(this.now()),
    );
  }

  /** PARTNER_ADDED / PARTNER_REMOVED: entry id is the app's partner business, not the WABA. */
  partnerEvent(wabaId: string, event: "PARTNER_ADDED" | "PARTNER_REMOVED" = "PARTNER_ADDED") {
    const waba = this.store.wabas.get(wabaId);
    if (!waba) throw new Error(`Unknown WABA ${wabaId}.`);
    this.sender.enqueue(
      this.store.partnerBusinessId,
      { field: "account_update", value: { event, waba_info: { waba_id: waba.id, owner_business_id: waba.businessId } } },
      unixSeconds(this.now()),
    );
  }

  // ---- templates ------------------------------------------------------------------------------

  /**
   * message_template_status_update. `reason` is "NONE" unless rejected, and null for DELETED;
   * extras (rejection_info, disable_info, other_info) ride on the events Meta sends them with.
   */
  templateStatus(template: Template, event: string, reason: string | null, extras: Record<string, unknown> = {}) {
    this.sender.enqueue(
      template.wabaId,
      {
        field: "message_template_status_update",
        value: {
          event,
          ...templateRef(template),
          reason,
          message_template_category: template.category,
          ...extras,
        },
      },
      unixSeconds(this.now()),
    );
  }

  /** template_category_update: Meta moved the template to another category. */
  templateCategory(template: Template, previous: string, next: string) {
    this.sender.enqueue(
      template.wabaId,
      { field: "template_category_update", value: { ...templateRef(template), previous_category: previous, new_category: next } },
      unixSeconds(this.now()),
    );
  }

  /** message_template_quality_update. */
  templateQuality(template: Template, previous: string, next: string) {
    this.sender.enqueue(
      template.wabaId,
      {
        field: "message_template_quality_update",
        value: { previous_quality_score: previous, new_quality_score: next, ...templateRef(template) },
      },
      unixSeconds(this.now()),
    );
  }
}

/**
 * The template's id, name and language as template webhooks carry them: the id as a JSON number
 * (a string in the Graph API), the language with a hyphen ("en-US") as in Meta's webhook samples,
 * although the Graph API says "en_US".
 */
function templateRef(template: Template) {
  return {
    message_template_id: Number(template.id),
    message_template_name: template.name,
    message_template_language: template.language.replace(/_/g, "-"),
  };
}

export const QUALITY_EVENTS = ["FLAGGED", "UNFLAGGED", "UPGRADE", "DOWNGRADE", "THROUGHPUT_UPGRADE"];

const FAILURE_TEXT: Record<number, { title: string; details: string }> = {
  131026: { title: "Message undeliverable", details: "Message Undeliverable." },
  131047: {
    title: "Re-engagement message",
    details: "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
  },
  131049: {
    title: "This message was not delivered to maintain healthy ecosystem engagement.",
    details: "In order to maintain a healthy ecosystem engagement, the message failed to be delivered.",
  },
  131050: {
    title: "Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.",
    details: "The user has stopped marketing messages.",
  },
  131000: { title: "Something went wrong", details: "Message failed to send due to an unknown error." },
  131042: {
    title: "Business eligibility payment issue",
    details: "Message failed to send because there were one or more errors related to your payment method.",
  },
};
