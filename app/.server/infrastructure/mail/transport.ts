import nodemailer from "nodemailer";
import { desc } from "drizzle-orm";
import { env } from "../config/env";
import { db } from "../db/client";
import { mailOutbox } from "../db/schema";
import { log } from "../log";

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

let transporter: nodemailer.Transporter | undefined;
let transporterUrl: string | undefined;

function smtpTransport(url: string) {
  if (!transporter || transporterUrl !== url) {
    transporter = nodemailer.createTransport(url);
    transporterUrl = url;
  }
  return transporter;
}

/**
 * The mail server refused or could not be reached. Its network error (ECONNREFUSED, ETIMEDOUT) is
 * kept in words and as `reason`, not as `cause`: a job worker must not take the mail server's
 * outage for the database's and hand the job back uncounted.
 */
export class MailNotSentError extends Error {
  readonly code = "JUMBE_MAIL_NOT_SENT";
  constructor(readonly reason: unknown) {
    super(`mail not sent: ${reason instanceof Error ? reason.message : String(reason)}`);
    this.name = "MailNotSentError";
  }
}

/** Sends over SMTP_URL when configured; otherwise (sandbox) stores the message in the outbox. */
export async function sendMail(mail: OutgoingMail) {
  const { SMTP_URL, MAIL_FROM } = env();
  if (SMTP_URL) {
    await smtpTransport(SMTP_URL)
      .sendMail({ from: MAIL_FROM, ...mail })
      .catch((error: unknown) => {
        throw new MailNotSentError(error);
      });
    log().info({ to: mail.to, subject: mail.subject }, "mail sent");
    return;
  }
  await db().insert(mailOutbox).values({ toAddress: mail.to, subject: mail.subject, textBody: mail.text, htmlBody: mail.html });
  log().info({ to: mail.to, subject: mail.subject }, "mail stored in sandbox outbox");
}

export async function listOutbox(limit = 100) {
  const rows = await db().select().from(mailOutbox).orderBy(desc(mailOutbox.id)).limit(limit);
  return rows.map((row) => ({ id: row.id, to: row.toAddress, subject: row.subject, text: row.textBody, sentAt: row.sentAt.toISOString() }));
}
