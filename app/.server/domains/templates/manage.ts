import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import type { MessageTemplate } from "../../infrastructure/db/schema";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { decryptSecret } from "../../infrastructure/security/crypto";
import { describeGraphFailure, graphClient, type GraphClient } from "../../infrastructure/clients/whatsapp-graph/graph-client";
import { isUniqueViolation } from "../../infrastructure/db/errors";
import {
  formatBytes,
  inputFromMeta,
  isMediaFormat,
  languageLabel,
  LIMITS,
  templateProblems,
  toMetaComponents,
  type Problems,
  type TemplateInput,
} from "../../../lib/templates";
import { findTemplate, toTemplate } from "./queries";
import { recordTemplateEvent } from "./events";
import { attachSample, copySample, dropSample, HANDLE_REUSE_MS, rememberHandle, templateSampleFile, usableSample } from "./media";
import { m } from "~/paraglide/messages";

/**
 * Creating, submitting, copying, editing and deleting templates. Jumbe checks every rule it can
 * before calling Meta; what Meta still refuses is kept on the template in Meta's words.
 */

export interface Actor {
  organizationId: string;
  userId: string | null;
  meta?: RequestMeta;
}

/** The refusals, in the request's language (read when asked, never at load). */
export const TEMPLATE_MESSAGES = {
  get noAccount() {
    return m.templates_refusal_no_account();
  },
  get chooseAccount() {
    return m.templates_refusal_choose_account();
  },
  get unknownAccount() {
    return m.templates_refusal_unknown_account();
  },
  get notEditable() {
    return m.templates_refusal_not_editable();
  },
  get accountGone() {
    return m.templates_refusal_account_gone();
  },
  get sampleGone() {
    return m.templates_refusal_sample_gone();
  },
  get sampleMissing() {
    return m.templates_refusal_sample_missing();
  },
  get notHeld() {
    return m.templates_refusal_not_held();
  },
};

/** A media header's sample the tenant may use for this template (checked before anything is stored). */
async function checkSample(actor: Actor, input: TemplateInput, templateId?: string): Promise<Problems | undefined> {
  if (input.category === "AUTHENTICATION" || !isMediaFormat(input.headerFormat)) return undefined;
  const sample = await usableSample(actor.organizationId, input.headerSample?.id, templateId);
  return sample ? undefined : { headerSample: TEMPLATE_MESSAGES.sampleGone };
}

/** After saving: the template's sample is the one chosen, or none without a media header. */
async function keepSample(actor: Actor, input: TemplateInput, templateId: string) {
  if (input.category !== "AUTHENTICATION" && isMediaFormat(input.headerFormat) && input.headerSample?.id)
    await attachSample(actor.organizationId, input.headerSample.id, templateId);
  else await dropSample(actor.organizationId, templateId);
}

/**
 * The components to send to Meta: a media header gets its sample's upload handle, uploaded through
 * the Resumable Upload API now unless Meta issued one for it within HANDLE_REUSE_MS. The upload is
 * recorded in the activity log; a failure is thrown like any Graph failure.
 */
async function componentsWithHandle(
  actor: Actor,
  template: Pick<MessageTemplate, "id" | "name">,
  components: Record<string, unknown>[],
  token: string,
  client: GraphClient,
): Promise<Record<string, unknown>[]> {
  const index = components.findIndex((c) => c.type === "HEADER" && isMediaFormat(String(c.format)));
  if (index < 0) return components;
  const sample = await templateSampleFile(actor.organizationId, template.id);
  if (!sample) throw new Error(TEMPLATE_MESSAGES.sampleMissing);
  let handle =
    sample.metaHandle && sample.uploadedAt && Date.now() - sample.uploadedAt.getTime() < HANDLE_REUSE_MS ? sample.metaHandle : null;
  if (!handle) {
    handle = await client.uploadFile(token, { fileName: sample.fileName, contentType: sample.contentType, bytes: sample.bytes });
    await rememberHandle(sample.id, handle, new Date());
    await logTemplate(
      actor,
      "success",
      "Template sample uploaded to Meta",
      `${template.name}: ${sample.fileName} (${sample.contentType}, ${formatBytes(sample.size)})`,
    );
  }
  return components.map((c, i) => (i === index ? { ...c, example: { header_handle: [handle] } } : c));
}

export type SaveResult = { ok: true; template: MessageTemplate; submitError?: string } | { ok: false; problems: Problems; status?: number };

interface LiveAccount {
  id: string;
  waba_id: string;
  access_token_encrypted: string;
}

async function liveAccounts(organizationId: string) {
  return queryRows<LiveAccount>(
    db(),
    sql`select id, waba_id, access_token_encrypted from whatsapp_accounts where organization_id = ${organizationId} and status = 'connected' order by connected_at`,
  );
}

/** The account a new template goes to: the chosen one, or the only one; problems otherwise. */
async function chooseAccount(
  organizationId: string,
  accountId: string | undefined,
  submitting: boolean,
): Promise<{ account?: LiveAccount; problems?: Problems }> {
  const accounts = await liveAccounts(organizationId);
  if (accountId) {
    const account = accounts.find((a) => a.id === accountId);
    return account ? { account } : { problems: { accountId: TEMPLATE_MESSAGES.unknownAccount } };
  }
  if (accounts.length === 1) return { account: accounts[0] };
  if (accounts.length > 1) return { problems: { accountId: TEMPLATE_MESSAGES.chooseAccount } };
  return submitting ? { problems: { form: TEMPLATE_MESSAGES.noAccount } } : { account: undefined };
}

async function nameTaken(organizationId: string, wabaId: string | null, name: string, language: string, exceptId?: string) {
  const rows = await queryRows<{ id: string }>(
    db(),
    sql`
    select id from message_templates
    where organization_id = ${organizationId} and coalesce(waba_id, '') = ${wabaId ?? ""} and name = ${name} and language = ${language}
      and id <> ${exceptId ?? "00000000-0000-0000-0000-000000000000"}::uuid limit 1`,
  );
  return rows.length > 0;
}

const takenMessage = (input: { name: string; language: string }) =>
  m.templates_refusal_name_taken({ name: input.name, language: languageLabel(input.language) });

/** Saves a new template as a draft and, when asked, submits it to Meta. */
export async function createTemplate(
  actor: Actor,
  input: TemplateInput,
  options: { accountId?: string; submit: boolean },
  client: GraphClient = graphClient(),
): Promise<SaveResult> {
  const problems = templateProblems(input);
  if (Object.keys(problems).length) return { ok: false, problems };
  const chosen = await chooseAccount(actor.organizationId, options.accountId, options.submit);
  if (chosen.problems) return { ok: false, problems: chosen.problems };
  const account = chosen.account;
  const wabaId = account?.waba_id ?? null;
  if (await nameTaken(actor.organizationId, wabaId, input.name, input.language))
    return { ok: false, problems: { name: takenMessage(input) } };
  const sampleProblems = await checkSample(actor, input);
  if (sampleProblems) return { ok: false, problems: sampleProblems };
  let row: Record<string, unknown> | undefined;
  try {
    [row] = await queryRows<Record<string, unknown>>(
      db(),
      sql`
      insert into message_templates (organization_id, account_id, waba_id, name, language, category, status, components, created_by)
      values (${actor.organizationId}, ${account?.id ?? null}, ${wabaId}, ${input.name}, ${input.language}, ${input.category}, 'draft',
              ${JSON.stringify(toMetaComponents(input))}::jsonb, ${actor.userId})
      returning *`,
    );
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, problems: { name: takenMessage(input) } };
    throw error;
  }
  const template = toTemplate(row!);
  await keepSample(actor, input, template.id);
  await logTemplate(
    actor,
    "success",
    "Template created",
    `${template.name} (${languageLabel(template.language, "en")}, ${template.category})${options.submit ? "" : " saved as a draft"}`,
  );
  if (!options.submit || !account) return { ok: true, template };
  return submitOrHold(actor, template, account, "submitted", client);
}

/** Whether the organisation's submissions wait for the platform's review before Meta (organizations.template_review). */
export async function submissionsHeld(organizationId: string) {
  const [row] = await queryRows<{ template_review: boolean }>(
    db(),
    sql`select template_review from organizations where id = ${organizationId}`,
  );
  return row?.template_review === true;
}

/**
 * A tenant's submission: to Meta, or, while the organisation is held for review, kept as "held"
 * until a platform administrator approves it (which sends it on through sendHeldTemplate, the same
 * code as here) or returns it with a reason.
 */
async function submitOrHold(
  actor: Actor,
  template: MessageTemplate,
  account: LiveAccount,
  event: "submitted" | "edited",
  client: GraphClient,
): Promise<SaveResult> {
  await recordTemplateEvent({
    templateId: template.id,
    organizationId: actor.organizationId,
    source: "tenant",
    event,
    actorId: actor.userId,
  });
  if (await submissionsHeld(actor.organizationId)) return holdForReview(actor, template, account);
  return submitToMeta(actor, template, account, client);
}

/** Keeps a submission for the platform's review: status held, nothing sent to Meta, any earlier decision cleared. */
async function holdForReview(actor: Actor, template: MessageTemplate, account: LiveAccount): Promise<SaveResult> {
  const [row] = await queryRows<Record<string, unknown>>(
    db(),
    sql`
    update message_templates set status = 'held', submitted_at = now(), account_id = ${account.id}, waba_id = ${account.waba_id},
      last_error = null, rejection_reason = null, platform_rejection = null, platform_reviewed_at = null, platform_reviewed_by = null,
      updated_at = now()
    where id = ${template.id} returning *`,
  );
  await recordTemplateEvent({ templateId: template.id, organizationId: actor.organizationId, source: "platform", event: "held" });
  await logTemplate(
    actor,
    "success",
    "Template held for review",
    `${template.name} (${languageLabel(template.language, "en")}): Jumbe reviews it before it goes to Meta`,
  );
  return { ok: true, template: toTemplate(row!) };
}

/**
 * Sends a held template on to Meta after the platform approved it: a first submission as the
 * tenant's submit sends it, an edit of a template already at Meta as the tenant's resubmission does.
 * On Meta's refusal it stays held, carrying Meta's words, like a tenant's failed submit.
 */
export async function sendHeldTemplate(actor: Actor, id: string, client: GraphClient = graphClient()): Promise<SaveResult> {
  const template = await findTemplate(actor.organizationId, id);
  if (!template) return { ok: false, problems: { form: m.templates_not_found() }, status: 404 };
  if (template.status !== "held") return { ok: false, problems: { form: TEMPLATE_MESSAGES.notHeld }, status: 409 };
  const account = (await liveAccounts(actor.organizationId)).find((a) =>
    template.metaTemplateId ? a.waba_id === template.wabaId : a.id === template.accountId || a.waba_id === template.wabaId,
  );
  if (!account) return { ok: false, problems: { form: TEMPLATE_MESSAGES.accountGone }, status: 409 };
  return template.metaTemplateId
    ? sendEditToMeta(actor, template, account, template.components, client)
    : submitToMeta(actor, template, account, client);
}

/** Sends a saved template to Meta; on failure it stays a draft carrying Meta's words. */
async function submitToMeta(actor: Actor, template: MessageTemplate, account: LiveAccount, client: GraphClient): Promise<SaveResult> {
  try {
    const token = decryptSecret(account.access_token_encrypted);
    const components = await componentsWithHandle(actor, template, template.components, token, client);
    const answer = await client.createTemplate(account.waba_id, token, {
      name: template.name,
      language: template.language,
      category: template.category,
      components,
    });
    // Meta's decision may already have arrived by webhook (it matched the template by name): keep it.
    const [row] = await queryRows<Record<string, unknown>>(
      db(),
      sql`
      update message_templates set meta_template_id = ${answer.id}, submitted_at = now(), last_error = null, updated_at = now(),
        account_id = ${account.id}, waba_id = ${account.waba_id}, components = ${JSON.stringify(components)}::jsonb,
        status = case when meta_event_at is null or status = 'held' then ${metaStatus(answer.status) ?? "pending"} else status end,
        category = case when meta_event_at is null then coalesce(${answer.category ?? null}, category) else category end
      where id = ${template.id} returning *`,
    );
    await logTemplate(
      actor,
      "success",
      "Template submitted to Meta",
      `${template.name} (${languageLabel(template.language, "en")}) to WhatsApp Business Account ${account.waba_id}`,
    );
    await recordTemplateEvent({ templateId: template.id, organizationId: actor.organizationId, source: "meta", event: "sent" });
    return { ok: true, template: toTemplate(row!) };
  } catch (error) {
    const reason = describeGraphFailure(error);
    const [row] = await queryRows<Record<string, unknown>>(
      db(),
      sql`update message_templates set last_error = ${`Meta did not accept it: ${reason}`}, account_id = ${account.id}, waba_id = ${account.waba_id}, updated_at = now()
          where id = ${template.id} returning *`,
    );
    await logTemplate(actor, "error", "Template submission failed", `${template.name}: ${reason}`);
    await recordTemplateEvent({
      templateId: template.id,
      organizationId: actor.organizationId,
      source: "meta",
      event: "send_failed",
      reason,
    });
    return { ok: true, template: toTemplate(row!), submitError: reason };
  }
}

/** One record of what happened to a template, in the tenant's activity log. */
function logTemplate(actor: Actor, status: "success" | "error", action: string, details: string) {
  return recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "template",
    status,
    action,
    details,
    meta: actor.meta,
  });
}

/** Jumbe's status for a status Meta names (undefined for events that do not change it). */
export function metaStatus(status: string | undefined): MessageTemplate["status"] | undefined {
  switch ((status ?? "").toUpperCase()) {
    case "APPROVED":
    case "REINSTATED":
      return "approved";
    case "PENDING":
    case "IN_APPEAL":
      return "pending";
    case "REJECTED":
      return "rejected";
    case "PAUSED":
      return "paused";
    case "DISABLED":
      return "disabled";
    default:
      return undefined;
  }
}

/** Submits a draft (first time) or sends a rejected or paused template's new content back to review. */
export async function updateTemplate(
  actor: Actor,
  id: string,
  input: TemplateInput,
  options: { accountId?: string; submit: boolean },
  client: GraphClient = graphClient(),
): Promise<SaveResult> {
  const template = await findTemplate(actor.organizationId, id);
  if (!template) return { ok: false, problems: { form: m.templates_not_found() }, status: 404 };
  if (!["draft", "rejected", "paused"].includes(template.status)) return { ok: false, problems: { form: TEMPLATE_MESSAGES.notEditable } };
  // At Meta a template's name, language and category stay what they were submitted with.
  const submitted = template.metaTemplateId !== null;
  const next: TemplateInput = submitted
    ? { ...input, name: template.name, language: template.language as TemplateInput["language"], category: template.category }
    : input;
  const problems = templateProblems(next);
  if (Object.keys(problems).length) return { ok: false, problems };
  const sampleProblems = await checkSample(actor, next, template.id);
  if (sampleProblems) return { ok: false, problems: sampleProblems };
  const components = toMetaComponents(next);

  if (!submitted) {
    const chosen = await chooseAccount(actor.organizationId, options.accountId ?? template.accountId ?? undefined, options.submit);
    if (chosen.problems) return { ok: false, problems: chosen.problems };
    const wabaId = chosen.account?.waba_id ?? null;
    if (await nameTaken(actor.organizationId, wabaId, next.name, next.language, template.id))
      return { ok: false, problems: { name: takenMessage(next) } };
    let row: Record<string, unknown> | undefined;
    try {
      [row] = await queryRows<Record<string, unknown>>(
        db(),
        sql`
        update message_templates set name = ${next.name}, language = ${next.language}, category = ${next.category},
          components = ${JSON.stringify(components)}::jsonb, account_id = ${chosen.account?.id ?? null}, waba_id = ${wabaId}, updated_at = now()
        where id = ${template.id} and organization_id = ${actor.organizationId} returning *`,
      );
    } catch (error) {
      if (isUniqueViolation(error)) return { ok: false, problems: { name: takenMessage(next) } };
      throw error;
    }
    const saved = toTemplate(row!);
    await keepSample(actor, next, saved.id);
    if (!options.submit || !chosen.account) return { ok: true, template: saved };
    return submitOrHold(actor, saved, chosen.account, template.status === "draft" ? "submitted" : "edited", client);
  }

  const account = (await liveAccounts(actor.organizationId)).find((a) => a.waba_id === template.wabaId);
  if (!account) return { ok: false, problems: { form: TEMPLATE_MESSAGES.accountGone } };
  await keepSample(actor, next, template.id);
  await recordTemplateEvent({
    templateId: template.id,
    organizationId: actor.organizationId,
    source: "tenant",
    event: "edited",
    actorId: actor.userId,
  });
  if (await submissionsHeld(actor.organizationId)) {
    await queryRows(db(), sql`update message_templates set components = ${JSON.stringify(components)}::jsonb where id = ${template.id}`);
    return holdForReview(actor, { ...template, components }, account);
  }
  return sendEditToMeta(actor, template, account, components, client);
}

/** Sends the new content of a template already at Meta back to Meta's review (pending), or keeps Meta's words on failure. */
async function sendEditToMeta(
  actor: Actor,
  template: MessageTemplate,
  account: LiveAccount,
  components: Record<string, unknown>[],
  client: GraphClient,
): Promise<SaveResult> {
  let sent = components;
  try {
    const token = decryptSecret(account.access_token_encrypted);
    sent = await componentsWithHandle(actor, template, components, token, client);
    await client.editTemplate(template.metaTemplateId!, token, { components: sent });
  } catch (error) {
    const reason = describeGraphFailure(error);
    await queryRows(
      db(),
      sql`update message_templates set last_error = ${`Meta did not accept the change: ${reason}`}, updated_at = now() where id = ${template.id}`,
    );
    await logTemplate(actor, "error", "Template resubmission failed", `${template.name}: ${reason}`);
    await recordTemplateEvent({
      templateId: template.id,
      organizationId: actor.organizationId,
      source: "meta",
      event: "send_failed",
      reason,
    });
    return { ok: true, template: (await findTemplate(actor.organizationId, template.id))!, submitError: reason };
  }
  const [row] = await queryRows<Record<string, unknown>>(
    db(),
    sql`
    update message_templates set components = ${JSON.stringify(sent)}::jsonb, status = 'pending', rejection_reason = null,
      last_error = null, submitted_at = now(), updated_at = now()
    where id = ${template.id} returning *`,
  );
  await logTemplate(actor, "success", "Template resubmitted to Meta", `${template.name} (${languageLabel(template.language, "en")})`);
  await recordTemplateEvent({ templateId: template.id, organizationId: actor.organizationId, source: "meta", event: "sent" });
  return { ok: true, template: toTemplate(row!) };
}

/** A new draft with the same content and a fresh name (name_copy, name_copy_2...). */
export async function copyTemplate(actor: Actor, id: string): Promise<MessageTemplate | undefined> {
  const template = await findTemplate(actor.organizationId, id);
  if (!template) return undefined;
  const base = `${template.name.replace(/_copy(_\d+)?$/, "")}_copy`.slice(0, LIMITS.name - 4);
  for (let n = 1; n < 100; n++) {
    const name = n === 1 ? base : `${base}_${n}`;
    try {
      const [row] = await queryRows<Record<string, unknown>>(
        db(),
        sql`
        insert into message_templates (organization_id, account_id, waba_id, name, language, category, status, components, created_by)
        values (${actor.organizationId}, ${template.accountId}, ${template.wabaId}, ${name}, ${template.language}, ${template.category}, 'draft',
                ${JSON.stringify(template.components)}::jsonb, ${actor.userId})
        returning *`,
      );
      const copy = toTemplate(row!);
      await copySample(actor.organizationId, template.id, copy.id);
      await logTemplate(actor, "success", "Template copied", `${template.name} copied as ${name}`);
      return copy;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  throw new Error("no free name for the copy");
}

export type DeleteResult = { ok: true; atMeta: boolean } | { ok: false; status: 404 | 502; message: string };

/**
 * Deletes a template here and at Meta. The row is first marked as being deleted (hidden from lists),
 * then deleted at Meta, then here: a crash between the two leaves the mark, and the next sync
 * finishes the deletion at Meta. If Meta refuses, the mark is lifted and Meta's words kept.
 */
export async function deleteTemplate(actor: Actor, id: string, client: GraphClient = graphClient()): Promise<DeleteResult> {
  const template = await findTemplate(actor.organizationId, id);
  if (!template) return { ok: false, status: 404, message: m.templates_not_found() };
  const account = template.metaTemplateId
    ? (await liveAccounts(actor.organizationId)).find((a) => a.waba_id === template.wabaId)
    : undefined;
  if (template.metaTemplateId && account) {
    await queryRows(db(), sql`update message_templates set deleting_at = now(), updated_at = now() where id = ${template.id}`);
    try {
      await client.deleteTemplate(account.waba_id, decryptSecret(account.access_token_encrypted), template.name, template.metaTemplateId);
    } catch (error) {
      const reason = describeGraphFailure(error);
      await queryRows(
        db(),
        sql`update message_templates set deleting_at = null, last_error = ${`Meta did not delete it: ${reason}`}, updated_at = now() where id = ${template.id}`,
      );
      await logTemplate(actor, "error", "Template deletion failed", `${template.name}: ${reason}`);
      return { ok: false, status: 502, message: m.templates_refusal_meta_delete({ name: template.name, reason }) };
    }
  }
  await queryRows(db(), sql`delete from message_templates where id = ${template.id} and organization_id = ${actor.organizationId}`);
  await recordTemplateEvent({
    templateId: template.id,
    organizationId: actor.organizationId,
    source: "tenant",
    event: "deleted",
    actorId: actor.userId,
  });
  await logTemplate(
    actor,
    "success",
    "Template deleted",
    `${template.name} (${languageLabel(template.language, "en")})${template.metaTemplateId ? (account ? ", also at Meta" : ", here only: its WhatsApp account is disconnected") : ""}`,
  );
  return { ok: true, atMeta: !!(template.metaTemplateId && account) };
}

/** The form's values of a stored template (to edit, copy or preview it). */
export function templateInput(template: Pick<MessageTemplate, "name" | "category" | "language" | "components">): TemplateInput {
  return inputFromMeta(template);
}
