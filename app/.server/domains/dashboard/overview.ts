import { accountStatus, overviewFigures } from "./progress";
import { RECENT_ROWS, recentActivityOnce, activityInWords } from "../activity";
import type { CurrentUser } from "../auth";
import { listConnections } from "../whatsapp";
import { collapseRepeats } from "./recent-activity";

const RECENT_ENTRIES = 5;

/** The Overview page's figures for one tenant, all counted from its own rows. */
export async function dashboardOverview(current: CurrentUser, context?: unknown) {
  const organizationId = current.organization.id;
  const [figures, recent, connections] = await Promise.all([
    // The figures and the setup steps in one statement, from the analytics rollups (decision 036).
    overviewFigures(organizationId),
    recentActivityOnce(context, organizationId),
    listConnections(organizationId),
  ]);
  const live = connections.some((c) => c.status === "connected" && c.numbers.some((n) => n.registered));
  return {
    messagesSent: figures.messagesSent,
    activeContacts: figures.activeContacts,
    templatesApproved: figures.templatesApproved,
    templatesTotal: figures.templatesTotal,
    accountStatus: accountStatus(figures),
    progress: figures.progress,
    whatsapp: { connected: live, connections },
    // Repeats are found on the stored English, then each entry is said in the reader's language.
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
    ).map(activityInWords),
  };
}
