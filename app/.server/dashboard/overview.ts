import { sql } from "drizzle-orm";
import { queryRows } from "../db/client";
import { RECENT_ROWS, recentActivityOnce } from "../activity/queries";
import type { CurrentUser } from "../auth/guards";
import { listConnections } from "../whatsapp/connections";
import { collapseRepeats } from "./recent-activity";

const RECENT_ENTRIES = 5;

/** The Overview page's figures for one tenant, all counted from its own rows. */
export async function dashboardOverview(current: CurrentUser, context?: unknown) {
  const organizationId = current.organization.id;
  const [figures, recent, connections] = await Promise.all([
    // The three counts in one statement: on embedded PGlite each statement costs a round of its own.
    queryRows<{ sent: number; active: number; templates: number }>(sql`
      select
        (select count(*) from messages where organization_id = ${organizationId} and direction = 'outbound')::int as sent,
        (select count(*) from contacts where organization_id = ${organizationId} and last_seen_at >= now() - interval '30 days')::int as active,
        (select count(*) from message_templates where organization_id = ${organizationId})::int as templates`),
    recentActivityOnce(context, organizationId),
    listConnections(organizationId),
  ]);
  const counts = figures[0];
  const live = connections.some((c) => c.status === "connected" && c.numbers.some((n) => n.registered));
  return {
    messagesSent: Number(counts?.sent ?? 0),
    activeContacts: Number(counts?.active ?? 0),
    templates: Number(counts?.templates ?? 0),
    // "Setup" until a WhatsApp number is connected (spec section 2).
    accountStatus: live ? "Active" : "Setup",
    whatsapp: { connected: live, connections },
    recentActivity: collapseRepeats(
      recent.map((r) => ({
        id: r.id,
        action: r.action,
        details: r.details,
        status: r.status,
        type: r.type,
        at: r.createdAt.toISOString(),
      })),
      RECENT_ENTRIES,
      // A full read may have cut a run of repeats short.
      { more: recent.length === RECENT_ROWS },
    ),
  };
}
