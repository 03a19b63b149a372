import { z } from "zod";

/**
 * The public API's shapes, once: they validate requests and answers at run time, and the OpenAPI
 * document (openapi.ts) is generated from them, so the documentation cannot drift from the API.
 */

export const ApiError = z
  .object({
    code: z.string().describe("Stable, machine-readable error code, e.g. invalid_api_key or rate_limited."),
    message: z.string().describe("What went wrong, for people."),
  })
  .meta({ id: "Error" });

export const Account = z
  .object({
    organization: z.object({
      id: z.uuid(),
      name: z.string(),
      businessId: z.string(),
      status: z.enum(["pending", "active", "suspended"]),
    }),
    plan: z.object({
      type: z.string().describe("Starter, Growth or Enterprise."),
      billingType: z.string().describe("prepaid or postpaid."),
      messageLimit: z.int().describe("Messages included per month."),
    }),
    usage: z.object({
      messagesThisMonth: z.int(),
      messageLimit: z.int(),
      percentUsed: z.number().min(0).max(100).describe("Capped at 100."),
    }),
  })
  .meta({ id: "Account" });

export const PhoneNumber = z
  .object({
    id: z.string().describe("WhatsApp phone number id, as Meta names it."),
    number: z.string().describe("E.164, e.g. +254711000001."),
    verifiedName: z.string().nullable(),
    wabaId: z.string(),
    connection: z.enum(["connected", "disconnected"]),
    quality: z.enum(["high", "medium", "low", "unknown"]),
    messagingLimit: z.string().nullable(),
    registered: z.boolean().describe("Registered for the Cloud API."),
  })
  .meta({ id: "PhoneNumber" });

export const PhoneNumberList = z.object({ data: z.array(PhoneNumber) }).meta({ id: "PhoneNumberList" });

export const PhoneNumbersQuery = z
  .object({
    connection: z
      .enum(["connected", "disconnected", "all"])
      .default("all")
      .describe("Only numbers whose account is connected, or disconnected."),
  })
  .strict();

export const NoQuery = z.object({}).strict();
