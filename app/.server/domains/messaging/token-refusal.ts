import { sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { enqueueJob, type Job } from "../../infrastructure/jobs/queue";
import { recordActivity } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";
import { sendMail } from "../../infrastructure/mail/transport";
import { whatsappReconnectMail } from "../../infrastructure/mail/messages";
import { ownersToWrite } from "../auth";

/**
 * Meta's error 190 (the access token expired, was revoked, or the password behind it changed) is not
 * a message's failure but the connection's: sending stops for every number of that account, the
 * account is marked as needing reconnection, and the tenant is told on the WhatsApp page, in the
 * activity log and by e-mail. The messages wait; Embedded Signup again clears the mark and sends them.
 */

export const RECONNECT_MAIL_QUEUE = "whatsapp.reconnect-mail";

/** A held message is looked at again this often (a reconnection also releases it at once). */
export const TOKEN_HOLD_MS = 5 * 60_000;
/** A message held longer than this since it was queued fails instead: it would arrive too late. */
export const TOKEN_HOLD_LIMIT_MS = 24 * 60 * 60_000;

/** Marks the accounts behind these numbers as needing reconnection; tells each tenant once. */
export async function markTokensRefused(refusals: { phoneNumberId: string; organizationId: string; reason: string }[]) {
  if (!refusals.length) return;
  const marked = await db().transaction(async (tx) => {
    const rows = await queryRows<{ id: string; organization_id: string; waba_id: string; name: string | null; token_refusal: string }>(
      tx,
      sql`
        update whatsapp_accounts a set token_refused_at = now(), token_refusal = r.reason, updated_at = now()
        from whatsapp_phone_numbers p,
             unnest(${sql.param(refusals.map((r) => r.phoneNumberId))}::text[], ${sql.param(refusals.map((r) => r.organizationId))}::uuid[],
                    ${sql.param(refusals.map((r) => r.reason.slice(0, 500)))}::text[]) as r(phone_number_id, organization_id, reason)
        where p.phone_number_id = r.phone_number_id and p.organization_id = r.organization_id and p.disconnected_at is null
          and a.id = p.account_id and a.status = 'connected' and a.token_refused_at is null
        returning a.id, a.organization_id, a.waba_id, a.name, a.token_refusal`,
    );
    for (const account of rows)
      await enqueueJob(
        RECONNECT_MAIL_QUEUE,
        { organizationId: account.organization_id, account: account.name ?? account.waba_id, reason: account.token_refusal },
        { executor: tx },
      );
    return rows;
  });
  for (const account of marked)
    await recordActivity({
      organizationId: account.organization_id,
      type: "settings",
      status: "error",
      action: "WhatsApp connection needs reconnecting",
      details: englishOf(words("app_activity_detail_whatsapp_token_refused", { id: account.waba_id, reason: account.token_refusal })),
    });
}

/** The e-mail to the tenant's owners (a job outside any transaction, like the other mails), each in their own language. */
export async function sendReconnectMails(jobs: Job<{ organizationId: string; account: string; reason: string }>[]) {
  for (const { payload } of jobs) {
    for (const owner of await ownersToWrite(payload.organizationId))
      await sendMail(whatsappReconnectMail(owner.email, payload.account, payload.reason, owner.locale));
  }
}

/** The error title a message held for its account's reconnection carries while it waits. */
export const TOKEN_HELD = "whatsapp_reconnect_needed";

/** After a reconnection: the account's waiting messages are due now. Answers how many. */
export async function releaseHeldMessages(accountId: string) {
  const rows = await rawQuery<{ n: number }>(
    `with released as (
       update messages m set next_attempt_at = now()
       from whatsapp_phone_numbers p
       where p.account_id = $1 and p.disconnected_at is null and m.organization_id = p.organization_id
         and m.phone_number_id = p.phone_number_id and m.direction = 'outbound' and m.accepted_at is null
         and m.failed_at is null and m.error_title = $2
       returning 1)
     select count(*)::int as n from released`,
    [accountId, TOKEN_HELD],
  );
  return rows[0]?.n ?? 0;
}
