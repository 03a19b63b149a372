import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { recordActivity } from "../activity";
import { enqueueJob, type Job } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { decryptSecret } from "../../infrastructure/security/crypto";
import {
  describeGraphFailure,
  GraphApiError,
  graphClient,
  type GraphClient,
  type GraphTemplate,
} from "../../infrastructure/clients/whatsapp-graph/graph-client";
import { CATEGORY_VALUES } from "../../../lib/templates";
import { metaStatus } from "./manage";
import { recordTemplateEvent } from "./events";

/**
 * Reconciling with Meta: Meta's list of a WABA's templates is the truth. Statuses a missed webhook
 * left behind are corrected, templates made in Meta's Business Manager are imported, templates
 * deleted at Meta are removed here, and deletions cut short here are finished at Meta.
 */

export const TEMPLATE_SYNC_QUEUE = "templates.sync";
export const TEMPLATE_SYNC_ALL_QUEUE = "templates.sync-all";
/** How often every connected account is reconciled, across all instances. */
export const TEMPLATE_SYNC_EVERY_SECONDS = 15 * 60;

export interface SyncOutcome {
  wabaId: string;
  imported: number;
  updated: number;
  removed: number;
  error?: string;
}

interface AccountRow {
  id: string;
  organization_id: string;
  waba_id: string;
  access_token_encrypted: string;
}

interface LocalRow {
  id: string;
  meta_template_id: string | null;
  name: string;
  language: string;
  status: string;
  category: string;
  components: unknown;
  rejection_reason: string | null;
  quality_score: string | null;
  deleting_at: string | null;
}

/** Reconciles one connected account's templates. */
export async function syncAccountTemplates(accountId: string, client: GraphClient = graphClient()): Promise<SyncOutcome | undefined> {
  const [account] = await queryRows<AccountRow>(
    db(),
    sql`select id, organization_id, waba_id, access_token_encrypted from whatsapp_accounts
        where id = ${accountId} and status = 'connected' and token_refused_at is null`,
  );
  // Gone, or Meta refused its token (190): nothing to read until the tenant connects it again.
  if (!account) return undefined;
  const token = decryptSecret(account.access_token_encrypted);
  let remote: Awaited<ReturnType<GraphClient["listTemplates"]>>;
  try {
    remote = await client.listTemplates(account.waba_id, token);
  } catch (error) {
    // A refused token does not heal by retrying: the sync ends, and the next one (hourly, or after
    // the tenant connects again) tries afresh. Anything else is retried by the queue.
    if (error instanceof GraphApiError && error.code === 190) {
      log().warn({ accountId, error: describeGraphFailure(error) }, "template sync skipped: Meta refused the account's token");
      return undefined;
    }
    throw error;
  }
  const local = await queryRows<LocalRow>(
    db(),
    sql`
    select id, meta_template_id, name, language, status, category, components, rejection_reason, quality_score, deleting_at
    from message_templates where organization_id = ${account.organization_id} and waba_id = ${account.waba_id}`,
  );
  const outcome: SyncOutcome = { wabaId: account.waba_id, imported: 0, updated: 0, removed: 0 };
  const byMetaId = new Map(local.filter((l) => l.meta_template_id).map((l) => [l.meta_template_id!, l]));
  const remoteIds = new Set(remote.map((r) => r.id));

  // Deletions cut short here: finish them at Meta (a template Meta no longer has counts as deleted).
  for (const row of local.filter((l) => l.deleting_at && l.meta_template_id)) {
    try {
      if (remoteIds.has(row.meta_template_id!)) await client.deleteTemplate(account.waba_id, token, row.name, row.meta_template_id!);
      await queryRows(db(), sql`delete from message_templates where id = ${row.id}`);
      remoteIds.delete(row.meta_template_id!);
      outcome.removed++;
    } catch (error) {
      log().warn({ templateId: row.id, error: describeGraphFailure(error) }, "could not finish a template deletion at Meta");
    }
  }

  for (const template of remote) {
    if (!remoteIds.has(template.id)) continue;
    const known =
      byMetaId.get(template.id) ?? local.find((l) => !l.meta_template_id && l.name === template.name && l.language === template.language);
    // Held for the platform's review: its content here is newer than Meta's, and waits for a decision.
    if (known?.deleting_at || known?.status === "held") continue;
    if (known) {
      if (await updateFromMeta(account.organization_id, known, template)) outcome.updated++;
    } else if (await importFromMeta(account, template)) {
      outcome.imported++;
    }
  }

  // Templates Meta no longer has were deleted there (in Business Manager, or by a deletion whose answer was lost).
  const gone = local.filter((l) => l.meta_template_id && !l.deleting_at && !remoteIds.has(l.meta_template_id));
  if (gone.length) {
    await queryRows(db(), sql`delete from message_templates where id = any(${sql.param(gone.map((g) => g.id))}::uuid[])`);
    outcome.removed += gone.length;
  }
  await queryRows(
    db(),
    sql`update message_templates set synced_at = now() where organization_id = ${account.organization_id} and waba_id = ${account.waba_id}`,
  );
  if (outcome.imported || outcome.updated || outcome.removed)
    await recordActivity({
      organizationId: account.organization_id,
      type: "template",
      status: "success",
      action: "Templates synced from Meta",
      details: `WhatsApp Business Account ${account.waba_id}: ${outcome.imported} imported, ${outcome.updated} updated, ${outcome.removed} removed${gone.length ? ` (deleted at Meta: ${gone.map((g) => g.name).join(", ")})` : ""}`,
    });
  return outcome;
}

/** JSON with keys sorted: jsonb keeps its own key order, so stored and fetched components compare by content. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value ?? null);
}

function rejection(template: GraphTemplate) {
  return template.rejectedReason && template.rejectedReason !== "NONE" ? template.rejectedReason : null;
}

async function updateFromMeta(organizationId: string, row: LocalRow, template: GraphTemplate) {
  const status = metaStatus(template.status) ?? row.status;
  const category = (CATEGORY_VALUES as readonly string[]).includes(template.category) ? template.category : row.category;
  const components = template.components.length ? template.components : row.components;
  const reason = status === "rejected" ? (rejection(template) ?? row.rejection_reason) : null;
  const same =
    row.meta_template_id === template.id &&
    row.status === status &&
    row.category === category &&
    row.rejection_reason === reason &&
    (template.qualityScore ?? row.quality_score) === row.quality_score &&
    canonical(row.components) === canonical(components);
  if (same) return false;
  await queryRows(
    db(),
    sql`
    update message_templates set meta_template_id = ${template.id}, status = ${status}, category = ${category},
      previous_category = coalesce(${template.previousCategory ?? null}, previous_category),
      components = ${JSON.stringify(components)}::jsonb, rejection_reason = ${reason},
      quality_score = coalesce(${template.qualityScore ?? null}, quality_score),
      submitted_at = coalesce(submitted_at, now()), last_error = null, updated_at = now()
    where id = ${row.id}`,
  );
  // What a missed webhook would have said, in the template's history.
  if (row.status !== status)
    await recordTemplateEvent({ templateId: row.id, organizationId, source: "meta", event: template.status.toUpperCase(), reason });
  if (row.category !== category)
    await recordTemplateEvent({
      templateId: row.id,
      organizationId,
      source: "meta",
      event: "category",
      reason: `${row.category} to ${category}`,
    });
  return true;
}

async function importFromMeta(account: AccountRow, template: GraphTemplate) {
  const status = metaStatus(template.status);
  if (!status || !(CATEGORY_VALUES as readonly string[]).includes(template.category)) return false;
  const inserted = await queryRows<{ id: string }>(
    db(),
    sql`
    insert into message_templates (organization_id, account_id, waba_id, meta_template_id, name, language, category, status, components,
                                   rejection_reason, quality_score, source, submitted_at, synced_at)
    values (${account.organization_id}, ${account.id}, ${account.waba_id}, ${template.id}, ${template.name}, ${template.language}, ${template.category},
            ${status}, ${JSON.stringify(template.components)}::jsonb, ${status === "rejected" ? rejection(template) : null},
            ${template.qualityScore ?? null}, 'meta', now(), now())
    on conflict do nothing returning id`,
  );
  return inserted.length > 0;
}

/** Reconciles every connected account of a tenant ("Sync from Meta"). */
export async function syncOrganisationTemplates(organizationId: string, client: GraphClient = graphClient()): Promise<SyncOutcome[]> {
  const accounts = await queryRows<{ id: string; waba_id: string }>(
    db(),
    sql`select id, waba_id from whatsapp_accounts where organization_id = ${organizationId} and status = 'connected' order by connected_at`,
  );
  const outcomes: SyncOutcome[] = [];
  for (const account of accounts) {
    try {
      const outcome = await syncAccountTemplates(account.id, client);
      if (outcome) outcomes.push(outcome);
    } catch (error) {
      outcomes.push({ wabaId: account.waba_id, imported: 0, updated: 0, removed: 0, error: describeGraphFailure(error) });
    }
  }
  return outcomes;
}

/** Asks for one account's sync soon (once, however often asked while it waits). */
export async function requestTemplateSync(accountId: string, executor?: Executor, delayMs = 2_000) {
  await enqueueJob(TEMPLATE_SYNC_QUEUE, { accountId }, { executor, delayMs, uniqueKey: `template-sync:${accountId}` });
}

/** The sync queue's handler: one account per job, outside a transaction (it calls Meta). */
export async function runTemplateSyncJobs(jobs: Job<{ accountId: string }>[]) {
  for (const job of jobs) await syncAccountTemplates(job.payload.accountId);
}

/** The recurring job: one sync job per connected account. */
export async function enqueueAllTemplateSyncs() {
  const accounts = await queryRows<{ id: string }>(db(), sql`select id from whatsapp_accounts where status = 'connected'`);
  for (const account of accounts) await requestTemplateSync(account.id, undefined, 0);
  return accounts.length;
}
