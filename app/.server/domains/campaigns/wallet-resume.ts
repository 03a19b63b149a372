import { rawQuery } from "../../infrastructure/db/client";
import { resumeCampaign } from "./lifecycle";
import { log } from "../../infrastructure/log";
import { WALLET_EMPTY_PAUSE, WALLET_EMPTY_PAUSE_BEFORE } from "../billing";
import { isRefusal } from "../../infrastructure/refusal";

/**
 * After money reaches a wallet: the campaigns that paused themselves when it ran dry resume, if it
 * now covers at least their next message (else they would pause again at once). Answers how many resumed.
 */
export async function resumeWalletPausedCampaigns(organizationId: string) {
  const paused = await rawQuery<{ id: string }>(
    `select c.id from campaigns c
     join wallets w on w.organization_id = c.organization_id
     join organizations o on o.id = c.organization_id
     left join billing_plans p on p.code = lower(o.plan_type) and p.billing_type = o.billing_type
     where c.organization_id = $1 and c.status = 'paused' and c.paused_reason = any($2::text[])
       and (o.billing_type = 'postpaid' or w.balance_cents - w.held_cents >= coalesce(p.message_price_cents, 200))
     order by c.created_at`,
    [organizationId, [WALLET_EMPTY_PAUSE, WALLET_EMPTY_PAUSE_BEFORE]],
  );
  let resumed = 0;
  for (const { id } of paused) {
    try {
      await resumeCampaign({ organizationId, userId: null }, id);
      resumed++;
    } catch (error) {
      // Someone resumed or cancelled it meanwhile, or it can no longer start: it stays as it is.
      if (!isRefusal(error, "campaign")) throw error;
      log().info({ campaignId: id, reason: error.message }, "wallet-paused campaign not resumed");
    }
  }
  return resumed;
}
