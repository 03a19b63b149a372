import { z } from "zod";
import type { CurrentUser } from "../../auth";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import { db } from "../../../infrastructure/db/client";
import { replicaStatus } from "../../../infrastructure/db/replica";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { isUuid } from "../../../infrastructure/db/keyset";
import { recordAdminAction } from "../audit";
import { alertsInRange, openAlerts, resolveAlert } from "./alerts";
import { databaseStats } from "./database-stats";
import { serviceHealth } from "./probes";
import { parseRange, SYSTEM_RANGES, systemSeries } from "./series";
import { m } from "~/paraglide/messages";

/**
 * A message of the catalogue by its id, on the server: the page's components name each message they
 * say, so the browser build's chunks stay free of the whole catalogue (decision 072).
 */
function say(id: string, values: Record<string, string> = {}) {
  return String(Reflect.apply(Reflect.get(m, id), undefined, [values]));
}

/** What the System tab shows, for the range in the URL (a bad one: the default, with the reason). */
export async function systemPage(_scope: PlatformScope, params: URLSearchParams) {
  const { range, error } = parseRange(params.get("range"));
  const fresh = params.get("probe") === "now";
  const [health, series, database, open, history] = await Promise.all([
    serviceHealth({ fresh }),
    systemSeries(range),
    databaseStats({ fresh }),
    openAlerts(50),
    alertsInRange({ sinceHours: SYSTEM_RANGES[range].hours, limit: 50 }),
  ]);
  return {
    range,
    rangeError: error,
    // The shared results keep English beside each message's id: said here in the reader's language.
    health: {
      ...health,
      services: health.services.map((probe) => ({
        ...probe,
        summary: probe.words ? say(probe.words.id, probe.words.values) : probe.summary,
      })),
    },
    series,
    database: {
      ...database,
      connectionsNote: database.connectionsNoteId ? say(database.connectionsNoteId) : database.connectionsNote,
      slowestNote: database.slowestNoteId ? say(database.slowestNoteId) : database.slowestNote,
    },
    // The read replica as this instance measures it (decision 163), or null without one.
    replica: replicaStatus(),
    openAlerts: open,
    alerts: history.alerts,
    moreAlerts: history.next !== null,
  };
}

// Each message is read in the request's language when the form is checked.
export const ResolveAlertForm = z.object({
  alertId: z.string().refine(isUuid, { error: () => m.admin_alert_not_found() }),
  note: z
    .string({ error: () => m.admin_alert_note_required() })
    .trim()
    .min(3, { error: () => m.admin_alert_note_short() })
    .max(500, { error: () => m.admin_alert_note_long() }),
});

/**
 * Resolve: the alert closes with the administrator's note, recorded in the audit log in the same
 * transaction. Answers the outcome for the page (a 4xx with the reason, or the alert resolved).
 */
export async function resolveAlertAction(current: CurrentUser, meta: RequestMeta, formData: FormData) {
  const parsed = ResolveAlertForm.safeParse({ alertId: formData.get("alertId") ?? "", note: formData.get("note") ?? undefined });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const notFound = issue.path[0] === "alertId";
    return { ok: false as const, status: notFound ? 404 : 400, message: issue.message, alertId: String(formData.get("alertId") ?? "") };
  }
  const { alertId, note } = parsed.data;
  return db().transaction(async (tx) => {
    const outcome = await resolveAlert(tx, current.user.id, alertId, note);
    if (!outcome.ok) return { ok: false as const, status: outcome.status, message: outcome.message, alertId };
    await recordAdminAction(tx, current, meta, {
      action: "alert.resolve",
      targetType: "alert",
      targetId: alertId,
      reason: note,
      before: { status: "open", rule: outcome.alert.rule, title: outcome.alert.title },
      after: { status: "resolved" },
    });
    return { ok: true as const, status: 200, message: m.admin_alert_resolved_toast({ title: outcome.alert.title }), alertId };
  });
}
