import type { GraphCaller } from "./graph-call";

/** A WABA's phone numbers: listed, read one by one, registered for the Cloud API. */

export interface GraphPhoneNumber {
  id: string;
  displayPhoneNumber: string;
  verifiedName?: string;
  qualityRating?: string;
  codeVerificationStatus?: string;
  status?: string;
  platformType?: string;
  messagingLimit?: string;
}

const PHONE_FIELDS = [
  "id",
  "display_phone_number",
  "verified_name",
  "quality_rating",
  "code_verification_status",
  "status",
  "platform_type",
  "whatsapp_business_manager_messaging_limit",
].join(",");

export function phoneNumberCalls(graph: GraphCaller) {
  return {
    async listPhoneNumbers(wabaId: string, token: string): Promise<GraphPhoneNumber[]> {
      const numbers: GraphPhoneNumber[] = [];
      let after: string | undefined;
      // Pages of 100; a WABA holds at most a few dozen numbers, the bound only stops a runaway loop.
      for (let page = 0; page < 20; page++) {
        const answer = await graph.call<{ data?: Record<string, unknown>[]; paging?: { cursors?: { after?: string }; next?: string } }>({
          step: "phone_numbers",
          method: "GET",
          path: `${encodeURIComponent(wabaId)}/phone_numbers`,
          query: { fields: PHONE_FIELDS, limit: "100", ...(after ? { after } : {}) },
          token,
          idempotent: true,
        });
        numbers.push(...(answer.data ?? []).map(toPhoneNumber));
        after = answer.paging?.next ? answer.paging.cursors?.after : undefined;
        if (!after) break;
      }
      return numbers;
    },

    async getPhoneNumber(phoneNumberId: string, token: string): Promise<GraphPhoneNumber> {
      const answer = await graph.call<Record<string, unknown>>({
        step: "phone_number",
        method: "GET",
        path: encodeURIComponent(phoneNumberId),
        query: { fields: PHONE_FIELDS },
        token,
        idempotent: true,
      });
      return toPhoneNumber(answer);
    },

    /** Cloud API registration with the two-step verification PIN (10 per number per 72 h). */
    async registerPhoneNumber(phoneNumberId: string, token: string, pin: string) {
      await graph.call<{ success?: boolean }>({
        step: "register",
        method: "POST",
        path: `${encodeURIComponent(phoneNumberId)}/register`,
        body: { messaging_product: "whatsapp", pin },
        token,
        // Each call counts against the 72-hour limit: never repeat one whose answer was lost.
        idempotent: false,
      });
    },
  };
}

function toPhoneNumber(raw: Record<string, unknown>): GraphPhoneNumber {
  const text = (key: string) => (typeof raw[key] === "string" ? (raw[key] as string) : undefined);
  return {
    id: String(raw.id),
    displayPhoneNumber: text("display_phone_number") ?? "",
    verifiedName: text("verified_name"),
    qualityRating: text("quality_rating"),
    codeVerificationStatus: text("code_verification_status"),
    status: text("status"),
    platformType: text("platform_type"),
    messagingLimit: text("whatsapp_business_manager_messaging_limit") ?? text("messaging_limit_tier"),
  };
}
