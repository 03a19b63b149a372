import { z } from "zod";
import { SMS_MAX_LENGTH } from "~/lib/sms-price";

/** SMS through Africa's Talking in the public API (issue 77, decision 150); the OpenAPI document is generated from them. */

export const SmsSend = z
  .object({
    to: z
      .string()
      .regex(/^\+[1-9]\d{6,14}$/, "A phone number in E.164 form: +254712345678.")
      .describe("The customer's number in E.164 form (+2547…). Their contact and conversation are made when new."),
    text: z
      .string()
      .trim()
      .min(1)
      .max(SMS_MAX_LENGTH)
      .describe(
        "The SMS, up to 1,530 characters: 160 GSM-7 characters a part (153 once there are several), 70 (67) when a character is outside GSM-7.",
      ),
  })
  .strict()
  .meta({ id: "SmsSend" });

export const SMS_SEND_EXAMPLE = { to: "+254712345678", text: "Your order 42 is ready for pick-up at our Kariakor shop. Asante!" };

export const Sms = z
  .object({
    id: z.uuid(),
    to: z.string(),
    text: z.string(),
    status: z
      .enum(["queued", "sent", "delivered", "failed"])
      .describe("queued until Africa's Talking takes it, sent, then delivered or failed as its delivery reports say."),
    encoding: z.enum(["GSM-7", "UCS-2"]),
    parts: z.number().int().describe("How many SMS parts it is sent as; each is charged."),
    priceCents: z.number().int().describe("What your wallet is charged for it: parts × the price of a part, in cents of KES."),
    currency: z.literal("KES"),
    contactId: z.uuid().nullable(),
    report: z
      .object({ status: z.string(), failureReason: z.string().nullable(), networkCode: z.string().nullable(), at: z.string() })
      .nullable()
      .describe("Africa's Talking's latest delivery report: Success, Failed or Rejected (with failureReason), Buffered, Sent, Submitted."),
    error: z.string().nullable().describe("Why it failed, when it did."),
    source: z.string().nullable().describe("Who sent it: api or inbox."),
    createdAt: z.string(),
    sentAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    failedAt: z.string().nullable(),
  })
  .meta({ id: "Sms" });

export const SmsIdParams = z.object({ id: z.string().describe("The SMS's id (a UUID), as POST /api/v1/sms answered it.") });
