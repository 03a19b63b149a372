import type { Job } from "../../infrastructure/jobs/queue";
import { rawQuery } from "../../infrastructure/db/client";
import { sendMail, type OutgoingMail } from "../../infrastructure/mail/transport";
import { notificationMail, webhookDisabledMail } from "../../infrastructure/mail/messages";
import { EVENT_SETTING, eventLabel } from "~/lib/notifications";
import type { Locale } from "~/paraglide/runtime";
import type { NotificationEvent } from "../../infrastructure/db/schema";
import { mailLocaleOf } from "../../infrastructure/mail/locale";
import type { NotificationMailKind } from "./notify";
import { noticeIn } from "./words";

export interface NotificationMailPayload {
  notificationId: string;
  /**
   * The e-mail's own words (the disabled webhook's), else the notification's. Jobs queued before
   * issue 43 carry the e-mail itself, in English.
   */
  mail?: NotificationMailKind | { subject: string; text: string };
}

interface MailRow {
  email: string;
  title: string;
  body: string;
  words: unknown;
  link: string | null;
  event: NotificationEvent;
  org: string;
  locale: Locale | null;
  default_locale: Locale | null;
}

/** The e-mail of one notification, in the recipient's language. */
function mailOf(row: MailRow, own: NotificationMailPayload["mail"], locale: Locale): OutgoingMail {
  if (own && "kind" in own) return webhookDisabledMail(row.email, own.url, locale);
  if (own) return { to: row.email, subject: own.subject, text: own.text };
  const said = noticeIn(locale, row);
  return notificationMail(
    row.email,
    { ...said, link: row.link, organization: row.org, event: EVENT_SETTING[row.event] ? eventLabel(row.event, locale) : row.event },
    locale,
  );
}

/**
 * Sends the e-mail of a notification, off the caller's request or transaction: the job was queued in
 * the same statement as the notification, so a crash loses neither, and a mail server that refuses
 * only retries this job. A notification gone since (the member was removed) sends nothing. It is
 * written in the recipient's language: theirs, else their organisation's (mailLocaleOf).
 */
export async function sendNotificationMails(jobs: Job<NotificationMailPayload>[]) {
  for (const { payload } of jobs) {
    const [row] = await rawQuery<MailRow>(
      `select u.email, n.title, n.body, n.words, n.link, n.event, o.name as org, u.locale, o.default_locale
       from notifications n join users u on u.id = n.user_id join organizations o on o.id = n.organization_id
       where n.id = $1`,
      [payload.notificationId],
    );
    if (!row) continue;
    const locale = mailLocaleOf({ locale: row.locale }, { defaultLocale: row.default_locale });
    await sendMail(mailOf(row, payload.mail, locale));
  }
}
