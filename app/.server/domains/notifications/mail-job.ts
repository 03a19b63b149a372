import type { Job } from "../../infrastructure/jobs/queue";
import { rawQuery } from "../../infrastructure/db/client";
import { sendMail } from "../../infrastructure/mail/transport";
import { notificationMail } from "../../infrastructure/mail/messages";
import { EVENT_SETTING } from "~/lib/notifications";
import type { NotificationEvent } from "../../infrastructure/db/schema";

export interface NotificationMailPayload {
  notificationId: string;
  /** The e-mail's own words (e.g. the disabled webhook's), else the notification's. */
  mail?: { subject: string; text: string };
}

/**
 * Sends the e-mail of a notification, off the caller's request or transaction: the job was queued in
 * the same statement as the notification, so a crash loses neither, and a mail server that refuses
 * only retries this job. A notification gone since (the member was removed) sends nothing.
 */
export async function sendNotificationMails(jobs: Job<NotificationMailPayload>[]) {
  for (const { payload } of jobs) {
    const [row] = await rawQuery<{
      email: string;
      title: string;
      body: string;
      link: string | null;
      event: NotificationEvent;
      org: string;
    }>(
      `select u.email, n.title, n.body, n.link, n.event, o.name as org
       from notifications n join users u on u.id = n.user_id join organizations o on o.id = n.organization_id
       where n.id = $1`,
      [payload.notificationId],
    );
    if (!row) continue;
    await sendMail(
      payload.mail
        ? { to: row.email, subject: payload.mail.subject, text: payload.mail.text }
        : notificationMail(row.email, { ...row, organization: row.org, event: EVENT_SETTING[row.event]?.label ?? row.event }),
    );
  }
}
