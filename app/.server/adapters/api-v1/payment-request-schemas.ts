import { z } from "zod";
import {
  PAYMENT_REQUEST_MAX_EXPIRY_MINUTES,
  PAYMENT_REQUEST_MAX_KES,
  PAYMENT_REQUEST_MIN_EXPIRY_MINUTES,
  PAYMENT_REQUEST_REFERENCE,
} from "~/lib/schemas/payment-requests";

/** The payment requests' shapes (issue 76, decision 137); the OpenAPI document is generated from them. */

export const PaymentRequestCreate = z
  .object({
    conversationId: z.uuid().describe("The conversation whose customer is asked to pay (from the inbox, or a message.received webhook)."),
    amount: z.number().int().min(1).max(PAYMENT_REQUEST_MAX_KES).describe("Whole Kenya shillings, 1 to 250,000."),
    description: z.string().trim().min(1).max(100).describe("What it is for, as the customer reads it."),
    reference: z
      .string()
      .regex(PAYMENT_REQUEST_REFERENCE)
      .optional()
      .describe(
        "The account reference on the M-Pesa prompt and for paying the paybill by hand: 1 to 12 letters or digits (upper-cased). Generated when left out.",
      ),
    expiresInMinutes: z
      .number()
      .int()
      .min(PAYMENT_REQUEST_MIN_EXPIRY_MINUTES)
      .max(PAYMENT_REQUEST_MAX_EXPIRY_MINUTES)
      .optional()
      .describe("How long it may be paid: 5 minutes to 30 days; 24 hours when left out."),
    shortcodeId: z.uuid().optional().describe("Which of your M-Pesa shortcodes is paid; your default one when left out."),
  })
  .strict()
  .meta({ id: "PaymentRequestCreate" });

export const PAYMENT_REQUEST_CREATE_EXAMPLE = {
  conversationId: "0b7f3c52-8d0a-4e8e-9a39-2f4b4c1d9e10",
  amount: 1250,
  description: "Order 42: 2 kg sukuma, 1 tray of eggs",
  reference: "ORDER42",
  expiresInMinutes: 1440,
};

export const PaymentRequest = z
  .object({
    id: z.uuid(),
    status: z.enum(["open", "paid", "expired", "cancelled"]).describe("open until paid, expired (past expiresAt) or cancelled."),
    amountKes: z.number().int(),
    description: z.string(),
    reference: z.string(),
    conversationId: z.uuid().nullable(),
    contactId: z.uuid(),
    shortcodeId: z.uuid(),
    source: z.string().describe("Who asked: inbox, api (automation, flow, shopify later)."),
    expiresAt: z.string(),
    createdAt: z.string(),
    paid: z
      .object({
        via: z.string().nullable().describe("stk (the prompt) or c2b (paid to the paybill by hand)."),
        receipt: z.string().nullable().describe("The M-Pesa receipt."),
        amountKes: z.number().nullable(),
        phone: z.string().nullable(),
        at: z.string().nullable(),
      })
      .nullable(),
    amountMismatch: z.boolean().describe("M-Pesa took an amount other than the one asked: check before you deliver."),
    lastAttempt: z
      .object({ state: z.string(), resultCode: z.string().nullable(), resultDesc: z.string().nullable(), at: z.string() })
      .nullable()
      .describe("The latest M-Pesa prompt: pending, paid, failed or in_doubt, with M-Pesa's code and words."),
  })
  .meta({ id: "PaymentRequest" });

export const PaymentRequestList = z.object({ data: z.array(PaymentRequest) }).meta({ id: "PaymentRequestList" });

export const PaymentRequestsQuery = z
  .object({
    conversationId: z.uuid().optional().describe("Only this conversation's."),
    status: z.enum(["open", "paid", "expired", "cancelled"]).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(25),
  })
  .strict();

export const PaymentRequestIdParams = z.object({ id: z.string().describe("The payment request's id (a UUID).") });
