import type { z } from "zod";
import { eq } from "drizzle-orm";
import { db } from "../db/client";
import { organizations } from "../db/schema";
import { countMessagesThisMonth } from "../auth/users";
import { listConnections } from "../whatsapp/connections";
import { Account, NoQuery, PhoneNumberList, PhoneNumbersQuery } from "./schemas";

export interface Endpoint<Q extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  method: "get";
  path: string;
  operationId: string;
  summary: string;
  description: string;
  query: Q;
  response: R;
  run(organizationId: string, query: z.output<Q>): Promise<z.input<R>>;
}

const define = <Q extends z.ZodType, R extends z.ZodType>(endpoint: Endpoint<Q, R>) => endpoint;

/** Every endpoint of /api/v1: the router, the OpenAPI document and the Developers page read this list. */
export const ENDPOINTS = [
  define({
    method: "get",
    path: "/api/v1/account",
    operationId: "getAccount",
    summary: "Your organisation, plan and usage",
    description: "The organisation the API key belongs to, its plan, and the messages sent this month against the plan's limit.",
    query: NoQuery,
    response: Account,
    async run(organizationId) {
      const [org] = await db().select().from(organizations).where(eq(organizations.id, organizationId)).limit(1);
      if (!org) throw new Error("organisation of a live API key is missing");
      const sent = await countMessagesThisMonth(organizationId);
      return {
        organization: { id: org.id, name: org.name, businessId: org.businessId, status: org.status },
        plan: { type: org.planType, billingType: org.billingType, messageLimit: org.messageLimit },
        usage: {
          messagesThisMonth: sent,
          messageLimit: org.messageLimit,
          percentUsed: org.messageLimit ? Math.min(100, Math.round((sent / org.messageLimit) * 1000) / 10) : 0,
        },
      };
    },
  }),
  define({
    method: "get",
    path: "/api/v1/phone-numbers",
    operationId: "listPhoneNumbers",
    summary: "Your WhatsApp numbers",
    description: "The WhatsApp Business numbers connected through Embedded Signup, with quality and messaging limit.",
    query: PhoneNumbersQuery,
    response: PhoneNumberList,
    async run(organizationId, query) {
      const connections = await listConnections(organizationId);
      return {
        data: connections
          .filter((c) => query.connection === "all" || c.status === query.connection)
          .flatMap((c) =>
            c.numbers.map((n) => ({
              id: n.phoneNumberId,
              number: n.number,
              verifiedName: n.verifiedName,
              wabaId: c.wabaId,
              connection: c.status,
              quality: n.quality as "high" | "medium" | "low" | "unknown",
              messagingLimit: n.messagingLimit,
              registered: n.registered,
            })),
          ),
      };
    },
  }),
];
