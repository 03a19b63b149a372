import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { decryptSecret } from "../../../infrastructure/security/crypto";
import { describeGraphFailure, graphClient } from "../../../infrastructure/clients/whatsapp-graph/graph-client";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { log } from "../../../infrastructure/log";
import { recordActivity } from "../../activity";
import { can, type Role } from "../../auth";
import { refuseConversion } from "./refusals";
import { m } from "~/paraglide/messages";

/**
 * "Send conversions to Meta" (issue 77, decision 156): off until an owner or admin turns it on.
 * Turning it on gets each connected WABA's dataset from Meta (GET first, POST only when it has
 * none) and keeps its id; nothing changes when Meta gives none. Each change is in the activity log.
 */
export interface ConversionActor {
  user: { id: string };
  organization: { id: string };
  role: Role;
}

export const DATASET_NAME = "Jumbe conversions";

export interface ConversionSettingsView {
  enabled: boolean;
  /** The tags that mean "converted" (decision 158), alphabetical. */
  leadTags: string[];
  datasets: { wabaId: string; datasetId: string }[];
  counts: { queued: number; sent: number; failed: number; skipped: number };
  hasAccount: boolean;
}

export async function conversionSettings(organizationId: string): Promise<ConversionSettingsView> {
  const [setting] = await queryRows<{ enabled: boolean; lead_tags: string[] }>(
    db(),
    sql`select enabled, lead_tags from ad_conversion_settings where organization_id = ${organizationId}`,
  );
  const datasets = await queryRows<{ waba_id: string; dataset_id: string }>(
    db(),
    sql`select waba_id, dataset_id from ad_datasets where organization_id = ${organizationId} order by created_at`,
  );
  const counted = await queryRows<{ status: string; n: number | string }>(
    db(),
    sql`select status, count(*) as n from ad_conversion_events where organization_id = ${organizationId} group by status`,
  );
  const count = (...statuses: string[]) => counted.filter((c) => statuses.includes(c.status)).reduce((sum, c) => sum + Number(c.n), 0);
  const accounts = await connectedAccounts(db(), organizationId);
  return {
    enabled: setting?.enabled ?? false,
    leadTags: setting?.lead_tags ?? [],
    datasets: datasets.map((d) => ({ wabaId: d.waba_id, datasetId: d.dataset_id })),
    counts: { queued: count("queued", "sending"), sent: count("sent"), failed: count("failed"), skipped: count("skipped") },
    hasAccount: accounts.length > 0,
  };
}

/** Whether the organisation consented (read in the transaction that writes an event). */
export async function conversionsEnabled(tx: Executor, organizationId: string) {
  const [row] = await queryRows<{ enabled: boolean }>(
    tx,
    sql`select enabled from ad_conversion_settings where organization_id = ${organizationId}`,
  );
  return row?.enabled === true;
}

function connectedAccounts(tx: Executor, organizationId: string) {
  return queryRows<{ waba_id: string; access_token_encrypted: string }>(
    tx,
    sql`select waba_id, access_token_encrypted from whatsapp_accounts
        where organization_id = ${organizationId} and status = 'connected' order by connected_at`,
  );
}

/** The WABA's dataset: kept, or read from Meta, or created there (GET before POST: decision 156). */
export async function datasetOf(organizationId: string, wabaId: string, sealedToken: string) {
  const [kept] = await queryRows<{ dataset_id: string }>(
    db(),
    sql`select dataset_id from ad_datasets where organization_id = ${organizationId} and waba_id = ${wabaId}`,
  );
  if (kept) return kept.dataset_id;
  const token = decryptSecret(sealedToken);
  const client = graphClient();
  const found = (await client.listDatasets(wabaId, token))[0]?.id ?? (await client.createDataset(wabaId, token, DATASET_NAME));
  await db().execute(sql`
    insert into ad_datasets (organization_id, waba_id, dataset_id) values (${organizationId}, ${wabaId}, ${found})
    on conflict (organization_id, waba_id) do update set dataset_id = excluded.dataset_id`);
  return found;
}

/** Turns sending on (with every connected WABA's dataset) or off; answers whether anything changed. */
export async function setConversionConsent(actor: ConversionActor, enabled: boolean, meta?: RequestMeta) {
  if (!can(actor.role, "whatsapp:manage")) throw refuseConversion(403, "forbidden", m.ads_conversions_readonly());
  const organizationId = actor.organization.id;
  if (enabled) {
    const accounts = await connectedAccounts(db(), organizationId);
    if (!accounts.length) throw refuseConversion(409, "no_account", m.ads_conversions_no_account());
    for (const account of accounts)
      try {
        await datasetOf(organizationId, account.waba_id, account.access_token_encrypted);
      } catch (error) {
        const reason = describeGraphFailure(error);
        log().warn({ organizationId, wabaId: account.waba_id, reason }, "no dataset for the conversions API");
        throw refuseConversion(502, "meta_failed", m.ads_conversions_meta_failed({ reason }));
      }
  }
  return db().transaction(async (tx) => {
    const [before] = await queryRows<{ enabled: boolean }>(
      tx,
      sql`select enabled from ad_conversion_settings where organization_id = ${organizationId} for update`,
    );
    if ((before?.enabled ?? false) === enabled) return false;
    await tx.execute(sql`
      insert into ad_conversion_settings (organization_id, enabled, changed_by, changed_at)
      values (${organizationId}, ${enabled}, ${actor.user.id}, now())
      on conflict (organization_id) do update set enabled = excluded.enabled, changed_by = excluded.changed_by, changed_at = now()`);
    await recordActivity(
      {
        organizationId,
        userId: actor.user.id,
        type: "settings",
        status: "success",
        action: enabled ? "Conversions to Meta turned on" : "Conversions to Meta turned off",
        meta,
      },
      tx,
    );
    return true;
  });
}
