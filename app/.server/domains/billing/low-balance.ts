import { rawQuery } from "../../infrastructure/db/client";

/** After money comes in: the alerts may fire again the next time the balance falls (once it is back above them). */
export async function clearLowBalanceAlert(organizationId: string) {
  await rawQuery(
    `update wallets set
       low_balance_notified_at = case when balance_cents - held_cents >= coalesce(low_balance_threshold_cents, 0) then null else low_balance_notified_at end,
       auto_topup_requested_at = case when balance_cents - held_cents >= coalesce(auto_topup_threshold_cents, 0) then null else auto_topup_requested_at end
     where organization_id = $1 and (low_balance_notified_at is not null or auto_topup_requested_at is not null)`,
    [organizationId],
  );
}
