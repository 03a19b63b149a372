import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { CurrentUser } from "../../auth";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { isUuid } from "../../../infrastructure/db/keyset";
import { changeWallet, walletState } from "../../billing";
import { formatKes } from "~/lib/invoice";
import { recordAdminAction } from "../audit";
import { ADJUSTMENT_REASON_MAX } from "~/lib/admin-billing";
import { refuseAdminBilling, NOT_FOUND, parseShillings } from "./refusal";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/**
 * Manual wallet adjustments: an administrator credits or debits an organisation's wallet with a
 * reason, through the ledger (a wallet_entries row of kind "adjustment" with who made it). A debit
 * the available balance cannot cover is refused and changes nothing (the ledger's own guard).
 */
export const ADJUSTMENT_MAX_KES = 1_000_000;

export async function adminWallet(_scope: PlatformScope, organizationId: string) {
  if (!isUuid(organizationId)) return null;
  const [org] = await queryRows<{ id: string; name: string; plan_type: string; billing_type: string; has_wallet: boolean }>(
    db(),
    sql`
    select o.id, o.name, o.plan_type, o.billing_type, exists (select 1 from wallets w where w.organization_id = o.id) as has_wallet
    from organizations o where o.id = ${organizationId}`,
  );
  if (!org) return null;
  const state = await walletState(db(), organizationId);
  const entries = await queryRows<{
    id: string | number;
    kind: string;
    amount_cents: string | number;
    held_cents: string | number;
    balance_after_cents: string | number;
    description: string;
    created_at: string | Date;
    created_by_email: string | null;
  }>(
    db(),
    sql`
    select e.id, e.kind, e.amount_cents, e.held_cents, e.balance_after_cents, e.description, e.created_at, u.email as created_by_email
    from wallet_entries e left join users u on u.id = e.created_by
    where e.organization_id = ${organizationId}
    order by e.id desc limit 25`,
  );
  return {
    organizationId: org.id,
    businessName: org.name,
    plan: org.plan_type,
    billingType: org.billing_type,
    hasWallet: org.has_wallet,
    ...state,
    entries: entries.map((e) => ({
      id: Number(e.id),
      kind: e.kind,
      amountCents: Number(e.amount_cents),
      heldCents: Number(e.held_cents),
      balanceAfterCents: Number(e.balance_after_cents),
      description: e.description,
      createdAt: new Date(e.created_at).toISOString(),
      createdBy: e.created_by_email,
    })),
  };
}
export type AdminWallet = NonNullable<Awaited<ReturnType<typeof adminWallet>>>;

export async function adjustWallet(
  current: CurrentUser,
  meta: RequestMeta,
  organizationId: string,
  input: { direction: string; amount: string; reason: string },
) {
  if (!isUuid(organizationId)) throw refuseAdminBilling(404, NOT_FOUND);
  if (input.direction !== "credit" && input.direction !== "debit") throw refuseAdminBilling(422, m.admin_wallet_direction(), "direction");
  const cents = parseShillings(input.amount);
  if (cents === null || cents <= 0 || cents > ADJUSTMENT_MAX_KES * 100)
    throw refuseAdminBilling(422, m.admin_wallet_amount_range({ max: formatNumber(ADJUSTMENT_MAX_KES) }), "amount");
  const reason = input.reason.trim();
  if (reason.length < 5) throw refuseAdminBilling(422, m.admin_wallet_reason_short(), "reason");
  if (reason.length > ADJUSTMENT_REASON_MAX)
    throw refuseAdminBilling(422, m.admin_wallet_reason_long({ max: formatNumber(ADJUSTMENT_REASON_MAX) }), "reason");
  const amountCents = input.direction === "credit" ? cents : -cents;
  return db().transaction(async (tx) => {
    const [org] = await queryRows<{ id: string }>(tx, sql`select id from organizations where id = ${organizationId}`);
    if (!org) throw refuseAdminBilling(404, NOT_FOUND);
    const before = await walletState(tx, organizationId, { lock: true });
    const entry = await changeWallet(tx, {
      organizationId,
      kind: "adjustment",
      amountCents,
      description: `Adjustment by Jumbe: ${reason}`,
      createdBy: current.user.id,
    });
    if (!entry)
      throw refuseAdminBilling(
        409,
        m.admin_wallet_debit_too_large({ amount: formatKes(cents), available: formatKes(before.availableCents) }),
        "amount",
      );
    const after = { balanceCents: entry.balanceAfterCents, heldCents: entry.heldAfterCents };
    await recordAdminAction(tx, current, meta, {
      action: "wallet.adjust",
      organizationId,
      targetType: "wallet",
      targetId: organizationId,
      reason,
      before: { balanceCents: before.balanceCents },
      after: { balanceCents: after.balanceCents, amountCents },
    });
    return { amountCents, balanceAfterCents: after.balanceCents };
  });
}
