import { sql } from "drizzle-orm";
import { enqueueJob } from "../../infrastructure/jobs/queue";

/** The job that sends the low-balance alert and the automatic M-Pesa prompt (alerts.ts). */
export const WALLET_ALERTS_QUEUE = "billing.wallet-alerts";
import type { WalletEntryKind } from "../../infrastructure/db/schema/billing";
import { queryRows } from "../../infrastructure/db/query";
import type { Executor } from "../../infrastructure/db/client";

/**
 * The wallet's ledger (decision 035). Every change of a wallet is one statement that updates its
 * row (locking it, so concurrent changes queue) only if the result keeps the available balance at
 * zero or more, and appends the ledger row with the totals after it. No row back: refused, nothing
 * changed. Nothing else writes wallets.balance_cents or held_cents.
 */
export interface WalletChange {
  organizationId: string;
  kind: WalletEntryKind;
  /** The change of the balance: money in is positive, money spent negative. */
  amountCents: number;
  /** The change of the reserved part: a hold positive, its charge or release negative. */
  heldCents?: number;
  description: string;
  messageCount?: number | null;
  campaignId?: string | null;
  paymentId?: string | null;
  invoiceId?: string | null;
  receipt?: string | null;
  createdBy?: string | null;
}

export interface WalletEntry {
  id: number;
  balanceAfterCents: number;
  heldAfterCents: number;
}

export interface WalletState {
  balanceCents: number;
  heldCents: number;
  availableCents: number;
}

/** Applies one change and writes its ledger row; null when it would take the available balance below zero. */
export async function changeWallet(tx: Executor, change: WalletChange): Promise<WalletEntry | null> {
  const held = change.heldCents ?? 0;
  if (!Number.isSafeInteger(change.amountCents) || !Number.isSafeInteger(held)) throw new Error("Wallet amounts are whole cents.");
  const result = await queryRows<{
    id: number | string;
    balance_after_cents: number | string;
    held_after_cents: number | string;
    alerts: { low: number | string | null; lowSent: boolean; auto: number | string | null; autoSent: boolean };
  }>(
    tx,
    sql`
    with changed as (
      update wallets set balance_cents = balance_cents + ${change.amountCents}, held_cents = held_cents + ${held}, updated_at = now()
      where organization_id = ${change.organizationId}
        and held_cents + ${held} >= 0 and balance_cents + ${change.amountCents} >= held_cents + ${held}
      returning balance_cents, held_cents, low_balance_threshold_cents, low_balance_notified_at, auto_topup_threshold_cents,
                auto_topup_requested_at)
    insert into wallet_entries (organization_id, kind, amount_cents, held_cents, balance_after_cents, held_after_cents, message_count,
                                campaign_id, payment_id, invoice_id, receipt, description, created_by)
    select ${change.organizationId}, ${change.kind}, ${change.amountCents}, ${held}, changed.balance_cents, changed.held_cents,
           ${change.messageCount ?? null}, ${change.campaignId ?? null}, ${change.paymentId ?? null}, ${change.invoiceId ?? null},
           ${change.receipt ?? null}, ${change.description}, ${change.createdBy ?? null}
    from changed
    returning id, balance_after_cents, held_after_cents,
              (select json_build_object('low', low_balance_threshold_cents, 'lowSent', low_balance_notified_at is not null,
                                        'auto', auto_topup_threshold_cents, 'autoSent', auto_topup_requested_at is not null) from changed) as alerts`,
  );
  const row = result[0];
  if (!row) return null;
  const entry = { id: Number(row.id), balanceAfterCents: Number(row.balance_after_cents), heldAfterCents: Number(row.held_after_cents) };
  // Money going out may cross the owner's thresholds: the alert job looks (once queued, in this transaction).
  if (change.amountCents < 0 || held > 0) {
    const available = entry.balanceAfterCents - entry.heldAfterCents;
    const { low, lowSent, auto, autoSent } = row.alerts;
    if ((low !== null && !lowSent && available < Number(low)) || (auto !== null && !autoSent && available < Number(auto)))
      await enqueueJob(
        WALLET_ALERTS_QUEUE,
        { organizationId: change.organizationId },
        { executor: tx, uniqueKey: `wallet-alerts:${change.organizationId}` },
      );
  }
  return entry;
}

/**
 * Holds the price of up to `count` messages: as many as the available balance covers (all or some).
 * The wallet row is locked first, so the count read is the count held. Answers how many were held
 * (0: none, nothing written).
 */
export async function holdForMessages(
  tx: Executor,
  hold: { organizationId: string; priceCents: number; count: number; campaignId?: string | null; description: string },
): Promise<number> {
  if (hold.count <= 0) return 0;
  if (hold.priceCents <= 0) return hold.count;
  const { availableCents } = await walletState(tx, hold.organizationId, { lock: true });
  const n = Math.min(hold.count, Math.floor(availableCents / hold.priceCents));
  if (n <= 0) return 0;
  const entry = await changeWallet(tx, {
    organizationId: hold.organizationId,
    kind: "hold",
    amountCents: 0,
    heldCents: n * hold.priceCents,
    messageCount: n,
    campaignId: hold.campaignId,
    description: hold.description,
  });
  return entry ? n : 0;
}

/** The wallet's totals now (a missing wallet reads as empty). */
export async function walletState(tx: Executor, organizationId: string, options: { lock?: boolean } = {}): Promise<WalletState> {
  const result = await queryRows<{ balance_cents: number | string; held_cents: number | string }>(
    tx,
    sql`
    select balance_cents, held_cents from wallets where organization_id = ${organizationId} ${options.lock ? sql`for update` : sql``}`,
  );
  const row = result[0];
  const balanceCents = Number(row?.balance_cents ?? 0);
  const heldCents = Number(row?.held_cents ?? 0);
  return { balanceCents, heldCents, availableCents: balanceCents - heldCents };
}
