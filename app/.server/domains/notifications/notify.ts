import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import type { NotificationEvent, OrgRole } from "../../infrastructure/db/schema";
import { EVENT_SETTING, isInProductLink } from "~/lib/notifications";
import { NOTIFICATION_CHANNEL } from "../../infrastructure/db/channels";
import { inEnglish, type NoticeWords } from "./words";

/** The pg_notify channel a new (or newly read) notification is announced on; the payload is the member's id. */
export { NOTIFICATION_CHANNEL };

/** One e-mail per notification the organisation's rule selects, sent by a job (an SMTP failure never fails the caller). */
export const NOTIFICATION_MAIL_QUEUE = "notifications.mail";

/**
 * An e-mail of its own in place of the notification's title and body, written by the mail job in the
 * recipient's language (the job payload keeps what it needs, not the words).
 */
export type NotificationMailKind = { kind: "webhook_disabled"; url: string };

export interface NotifyInput {
  organizationId: string;
  event: NotificationEvent;
  /**
   * What it says as messages: said in each reader's language, their English stored as the title
   * and body. Callers not yet moved to messages give the English title and body instead.
   */
  words?: NoticeWords;
  title?: string;
  body?: string;
  /** A path inside Jumbe (`/templates?...`): never another site. */
  link?: string | null;
  /** The cause, the same on every retry: a member is notified once per key. */
  dedupeKey: string;
  /** Named members: the campaign's author, the member whose role changed, the member who signed in. */
  userIds?: readonly (string | null | undefined)[];
  /**
   * Roles of the organisation that see it (default: the event's audience, owners and admins for most).
   * Roles the organisation's rule e-mails see it too, so a ticked role is never e-mailed about
   * something absent from its bell. `[]`: only the named members.
   */
  roles?: readonly OrgRole[];
  /** Who did it: not notified about their own act. */
  excludeUserId?: string | null;
  /** The e-mail's own words, where they differ from the notification's title and body. */
  mail?: NotificationMailKind;
}

export interface NotifyOutcome {
  /** Notifications written now (a key already used for a member writes nothing for them). */
  notified: number;
  /** E-mails queued for them. */
  mailed: number;
}

/**
 * Notifies members of an organisation, in one statement that joins the caller's transaction when
 * given one: one row per recipient (insert … on conflict do nothing on the member's dedupe key, so a
 * retried job or webhook notifies nobody twice), a mail job for each new one whose role the
 * organisation's rule for the event e-mails (its default without a rule), and pg_notify for the
 * bells that are open (delivered when the transaction commits, and not at all if it rolls back).
 */
export async function notify(input: NotifyInput, executor: Executor = db()): Promise<NotifyOutcome> {
  const setting = EVENT_SETTING[input.event];
  const link = input.link && isInProductLink(input.link) ? input.link : null;
  if (input.link && !link) throw new Error(`A notification links inside Jumbe only, not to ${input.link}`);
  const roles = input.roles ?? setting.audience;
  const userIds = (input.userIds ?? []).filter((id): id is string => typeof id === "string" && id.length > 0);
  const { title, body } = input.words ? inEnglish(input.words) : { title: input.title ?? "", body: input.body ?? "" };
  if (!title) throw new Error(`A ${input.event} notification says nothing: give its words or its title`);
  const words = input.words ? JSON.stringify(input.words) : null;
  const result = await queryRows<{ notified: number; mailed: number }>(
    executor,
    sql`
    with rule as (
      select coalesce(
        (select email_roles from notification_rules where organization_id = ${input.organizationId} and event = ${input.event}),
        ${sql.param([...setting.defaultEmail])}::text[]) as email_roles
    ), recipients as (
      select u.id, u.org_role = any(rule.email_roles) as mailed
      from users u cross join rule
      where u.organization_id = ${input.organizationId}
        and (u.id = any(${sql.param(userIds)}::uuid[])
             or (u.usertype = 'individual' and cardinality(${sql.param([...roles])}::text[]) > 0
                 and (u.org_role = any(${sql.param([...roles])}::text[]) or u.org_role = any(rule.email_roles))))
        and u.id is distinct from ${input.excludeUserId ?? null}::uuid
    ), inserted as (
      insert into notifications (organization_id, user_id, event, title, body, words, link, dedupe_key)
      select ${input.organizationId}, r.id, ${input.event}, ${title.slice(0, 200)}, ${body.slice(0, 2000)}, ${words}::jsonb, ${link},
             ${input.dedupeKey}
      from recipients r
      on conflict (user_id, dedupe_key) do nothing
      returning id, user_id
    ), mails as (
      insert into jobs (queue, payload, unique_key)
      select ${NOTIFICATION_MAIL_QUEUE}, jsonb_build_object('notificationId', i.id) || ${JSON.stringify(input.mail ? { mail: input.mail } : {})}::jsonb,
             'notification-mail:' || i.id
      from inserted i join recipients r on r.id = i.user_id
      where r.mailed
      on conflict (unique_key) where finished_at is null and failed_at is null do nothing
      returning id
    )
    select (select count(*)::int from inserted) as notified, (select count(*)::int from mails) as mailed,
           (select count(pg_notify(${NOTIFICATION_CHANNEL}, i.user_id::text))::int from inserted i) as announced`,
  );
  const row = result[0]!;
  return { notified: Number(row.notified), mailed: Number(row.mailed) };
}
