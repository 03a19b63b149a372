import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import type { MessageKey } from "../../infrastructure/db/message-keys";
import { messageEventsFor } from "./events";

/** Why a message failed: Meta's error (code, title, details), or Jumbe's code (code null, title the code). */
export interface Failure extends MessageKey {
  organizationId: string;
  code: number | null;
  title: string;
  details: string;
}

/** Fails messages for good, with their reason, and tells the tenant's webhook (message.failed). */
export async function failMessages(failures: Failure[]) {
  if (!failures.length) return;
  await db().transaction((tx) => failMessagesIn(tx, failures));
}

/** failMessages inside a transaction the caller holds, for a failure that must commit with other changes. */
export async function failMessagesIn(tx: Executor, failures: Failure[]) {
  if (!failures.length) return;
  {
    const rows = await queryRows<{ id: string; createdAt: string; organization_id: string; campaign_id: string | null }>(
      tx,
      sql`
      update messages m set status = 'failed', failed_at = now(), locked_until = null,
             error_code = f.code, error_title = f.title, error_details = f.details
      from unnest(${sql.param(failures.map((f) => f.id))}::uuid[], ${sql.param(failures.map((f) => f.createdAt))}::timestamptz[],
                  ${sql.param(failures.map((f) => f.code))}::int[], ${sql.param(failures.map((f) => f.title))}::text[],
                  ${sql.param(failures.map((f) => f.details))}::text[]) as f(id, created_at, code, title, details)
      where m.id = f.id and m.created_at = f.created_at and m.accepted_at is null and m.failed_at is null
      returning m.id, m.created_at::text as "createdAt", m.organization_id, m.campaign_id`,
    );
    await messageEventsFor(
      tx,
      rows.map((r) => ({
        id: r.id,
        createdAt: r.createdAt,
        organizationId: r.organization_id,
        status: "failed",
        previous: "queued",
        campaignId: r.campaign_id,
      })),
    );
  }
}
