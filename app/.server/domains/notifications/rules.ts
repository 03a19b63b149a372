import { rawQuery } from "../../infrastructure/db/client";
import { ORG_ROLES, type NotificationEvent, type OrgRole } from "../../infrastructure/db/schema";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { can, type Role } from "~/lib/permissions";
import { EVENT_SETTINGS, eventLabel, RULE_ROLES } from "~/lib/notifications";
import { ROLE_WORDS } from "~/lib/schemas/team";
import { Refusal } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";
import { inLocale } from "../../infrastructure/http/display-zone";

export type EmailRules = Record<NotificationEvent, OrgRole[]>;

/** Refused: only owners and admins change who is e-mailed. Nothing changed. */
export const refuseNotificationRules = () =>
  new Refusal({ domain: "notification_rules", status: 403, message: m.inbox_notifications_rules_forbidden() });

const ordered = (roles: readonly string[]) => RULE_ROLES.filter((role) => roles.includes(role));

/** Who each event e-mails in this organisation: its rule, or the event's default where it has none. */
export async function readEmailRules(organizationId: string): Promise<EmailRules> {
  const rows = await rawQuery<{ event: NotificationEvent; email_roles: string[] }>(
    `select event, email_roles from notification_rules where organization_id = $1`,
    [organizationId],
  );
  const stored = new Map(rows.map((r) => [r.event, r.email_roles]));
  return Object.fromEntries(EVENT_SETTINGS.map((s) => [s.event, ordered(stored.get(s.event) ?? s.defaultEmail)])) as EmailRules;
}

// The activity log keeps its lines in English (read in each reader's language: activity/words.ts).
const words = (roles: readonly OrgRole[]) =>
  inLocale("en", () => (roles.length ? roles.map((r) => ROLE_WORDS[r]).join(", ") : m.app_activity_detail_nobody()));

/**
 * Saves who each event e-mails (every event at once, as the settings form sends them), in one
 * statement, and logs what changed. Answers how many events changed.
 */
/** Who changes the rules (a member of the organisation, as the team pages know them). */
interface RulesEditor {
  user: { id: string };
  organization: { id: string };
  role: Role;
}

export async function saveEmailRules(actor: RulesEditor, rules: Partial<Record<NotificationEvent, readonly string[]>>, meta?: RequestMeta) {
  if (!can(actor.role, "notifications:manage")) throw refuseNotificationRules();
  const before = await readEmailRules(actor.organization.id);
  const next = Object.fromEntries(
    EVENT_SETTINGS.map((s) => [
      s.event,
      ordered((rules[s.event] ?? []).filter((r): r is OrgRole => (ORG_ROLES as readonly string[]).includes(r))),
    ]),
  ) as EmailRules;
  const changed = EVENT_SETTINGS.filter((s) => before[s.event].join() !== next[s.event].join());
  if (!changed.length) return 0;
  await rawQuery(
    `insert into notification_rules (organization_id, event, email_roles, updated_at)
     select $1, e.key, array(select jsonb_array_elements_text(e.value)), now() from jsonb_each($2::jsonb) e
     on conflict (organization_id, event) do update set email_roles = excluded.email_roles, updated_at = excluded.updated_at`,
    [actor.organization.id, JSON.stringify(next)],
  );
  await recordActivity({
    organizationId: actor.organization.id,
    userId: actor.user.id,
    type: "settings",
    status: "success",
    action: "Notification settings changed",
    // Stored as the activity log keeps its lines: in English.
    details: changed
      .map((s) =>
        m.app_activity_detail_email_rule(
          { event: eventLabel(s.event, "en"), before: words(before[s.event]), after: words(next[s.event]) },
          { locale: "en" },
        ),
      )
      .join("; "),
    meta,
  });
  return changed.length;
}
