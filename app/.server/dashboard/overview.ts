import { and, count, eq, gte, sql } from "drizzle-orm";
import { db } from "../db/client";
import { contacts, messageTemplates, messages } from "../db/schema";
import { RECENT_ROWS, recentActivityOnce } from "../activity/queries";
import type { CurrentUser } from "../auth/guards";
import { listConnections } from "../whatsapp/connections";
import { collapseRepeats } from "./recent-activity";

const RECENT_ENTRIES = 5;

/** The Overview page's figures for one tenant, all counted from its own rows. */
export async function dashboardOverview(current: CurrentUser, context?: unknown) {
  const organizationId = current.organization.id;
  const [sent, active, templates, recent, connections] = await Promise.all([
    db().select({ value: count() }).from(messages).where(and(eq(messages.organizationId, organizationId), eq(messages.direction, "outbound"))),
    db()
      .select({ value: count() })
      .from(contacts)
      .where(and(eq(contacts.organizationId, organizationId), gte(contacts.lastSeenAt, sql`now() - interval '30 days'`))),
    db().select({ value: count() }).from(messageTemplates).where(eq(messageTemplates.organizationId, organizationId)),
    recentActivityOnce(context, organizationId),
    listConnections(organizationId),
  ]);
  const live = connections.some((c) => c.status === "connected" && c.numbers.some((n) => n.registered));
  return {
    messagesSent: sent[0]?.value ?? 0,
    activeContacts: active[0]?.value ?? 0,
    templates: templates[0]?.value ?? 0,
    // "Setup" until a WhatsApp number is connected (spec section 2).
    accountStatus: live ? "Active" : "Setup",
    whatsapp: { connected: live, connections },
    recentActivity: collapseRepeats(
      recent.map((r) => ({ id: r.id, action: r.action, details: r.details, status: r.status, type: r.type, at: r.createdAt.toISOString() })),
      RECENT_ENTRIES,
      // A full read may have cut a run of repeats short.
      { more: recent.length === RECENT_ROWS },
    ),
  };
}
