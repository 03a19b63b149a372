import { sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import type { Job } from "../../infrastructure/jobs/queue";
import { notify } from "../notifications";
import { words } from "../../infrastructure/words/said";
import { log } from "../../infrastructure/log";
import { startMpesaTopup } from "./mpesa";
import { isRefusal } from "../../infrastructure/refusal";

/**
 * The owner's wallet alerts: a low-balance notification (bell and e-mail) once each time the
 * available balance falls below the threshold, and "send me an M-Pesa prompt below X": a top-up
 * prompt to the owner's phone, which they still approve with their PIN. The ledger queues this job
 * when money going out crosses a threshold (ledger.ts).
 */

interface WalletAlertRow {
  balance_cents: number | string;
  held_cents: number | string;
  low_balance_threshold_cents: number | string | null;
  low_balance_notified_at: Date | string | null;
  auto_topup_threshold_cents: number | string | null;
  auto_topup_amount_cents: number | string | null;
  auto_topup_phone: string | null;
  auto_topup_requested_at: Date | string | null;
}

/** How long an automatic prompt waits before another may be sent, if the first was not paid. */
const AUTO_PROMPT_QUIET_MS = 30 * 60_000;

export async function runWalletAlerts(jobs: Job<{ organizationId: string }>[]) {
  for (const job of jobs) await checkWalletAlerts(job.payload.organizationId);
}

export async function checkWalletAlerts(organizationId: string, now = new Date()) {
  const [wallet] = await rawQuery<WalletAlertRow>(`select * from wallets where organization_id = $1`, [organizationId]);
  if (!wallet) return;
  const available = Number(wallet.balance_cents) - Number(wallet.held_cents);
  const low = wallet.low_balance_threshold_cents === null ? null : Number(wallet.low_balance_threshold_cents);
  if (low !== null && available < low) {
    const claimed = await db().transaction(async (tx) => {
      const result = await queryRows<unknown>(
        tx,
        sql`
        update wallets set low_balance_notified_at = ${now.toISOString()}
        where organization_id = ${organizationId} and low_balance_notified_at is null returning 1`,
      );
      if (!result.length) return false;
      await notify(
        {
          organizationId,
          event: "low_balance",
          // Amounts in cents: written as each reader's language writes Kenya shillings.
          words: {
            title: words("app_notice_low_balance_title", { amount: { kes: available } }),
            body: words("app_notice_low_balance_body", { threshold: { kes: low } }),
          },
          link: "/billing",
          dedupeKey: `low-balance:${organizationId}:${now.getTime()}`,
        },
        tx,
      );
      return true;
    });
    if (claimed) log().info({ organizationId, available }, "low-balance alert sent");
  }
  const auto = wallet.auto_topup_threshold_cents === null ? null : Number(wallet.auto_topup_threshold_cents);
  const lastAsked = wallet.auto_topup_requested_at ? new Date(wallet.auto_topup_requested_at).getTime() : 0;
  if (
    auto !== null &&
    available < auto &&
    wallet.auto_topup_phone &&
    wallet.auto_topup_amount_cents &&
    now.getTime() - lastAsked > AUTO_PROMPT_QUIET_MS
  ) {
    const [claimed] = await rawQuery(
      `update wallets set auto_topup_requested_at = $2 where organization_id = $1
         and (auto_topup_requested_at is null or auto_topup_requested_at < $2::timestamptz - make_interval(secs => $3))
       returning 1`,
      [organizationId, now.toISOString(), AUTO_PROMPT_QUIET_MS / 1000],
    );
    if (!claimed) return;
    try {
      await startMpesaTopup(
        { organizationId, userId: null },
        { amount: Number(wallet.auto_topup_amount_cents) / 100, phone: wallet.auto_topup_phone, automatic: true },
      );
    } catch (error) {
      if (!isRefusal(error, "payment")) throw error;
      log().warn({ organizationId, reason: error.message }, "automatic M-Pesa prompt refused");
    }
  }
}
