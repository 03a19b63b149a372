import { describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { encryptSecret } from "~/.server/infrastructure/security/crypto";
import { activityLogs } from "~/.server/infrastructure/db/schema";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import {
  copyTemplate,
  createTemplate,
  deleteTemplate,
  updateTemplate,
  TEMPLATE_MESSAGES,
  type Actor,
} from "~/.server/domains/templates/manage";
import { findTemplate, listTemplates } from "~/.server/domains/templates/queries";
import { requestTemplateSync, syncOrganisationTemplates, TEMPLATE_SYNC_QUEUE } from "~/.server/domains/templates/sync";
import type { TemplateInput } from "~/lib/templates";
import { metaSandboxForFile } from "../support/meta-harness";
import { createVerifiedUser } from "../support/accounts";

/**
 * Issue 11: templates against the Meta sandbox: submitted through the Graph client, decided by the
 * sandbox's reviewer, the decision applied from its signed webhook through the job queue, and
 * reconciled by sync when a webhook is missed or a template was made or deleted elsewhere.
 */

const meta = metaSandboxForFile();

/** A tenant whose WABA is connected with a real sandbox token, as Embedded Signup leaves it. */
async function connectedTenant(name = "Nyota Savings Sacco") {
  const user = await createVerifiedUser({ businessName: name });
  const { account, wabaId } = await meta.graph.connect(user.organization.id, name);
  const actor: Actor = { organizationId: user.organization.id, userId: user.user.id };
  return { user, business: { wabaId }, account, actor };
}

const input = (change: Partial<TemplateInput> = {}): TemplateInput => ({
  name: "order_update",
  category: "UTILITY",
  language: "en",
  headerFormat: "NONE",
  body: "Habari {{1}}, your order {{2}} ships today.",
  bodyExamples: ["Amina", "KE-1042"],
  footer: "Nyota Sacco",
  buttons: [{ type: "QUICK_REPLY", text: "Track order" }],
  ...change,
});

/** Meta decides, its webhooks arrive, and the queue applies them. */
async function review() {
  const decided = await meta.sandbox.reviewTemplatesNow();
  await meta.sandbox.flushWebhooks();
  await drainJobs();
  return decided;
}

async function submitted(actor: Actor, change: Partial<TemplateInput> = {}) {
  const result = await createTemplate(actor, input(change), { submit: true });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  expect(result.submitError).toBeUndefined();
  return result.template;
}

describe("templates at Meta", () => {
  it("submits through Graph as pending, and the reviewer's approval arrives by webhook", async () => {
    const { actor, business } = await connectedTenant();
    const template = await submitted(actor);
    expect(template).toMatchObject({ status: "pending", wabaId: business.wabaId });
    expect(template.metaTemplateId).toMatch(/^\d+$/);
    const atMeta = meta.sandbox.templates(business.wabaId);
    expect(atMeta).toHaveLength(1);
    expect(atMeta[0]).toMatchObject({
      id: template.metaTemplateId,
      name: "order_update",
      language: "en",
      category: "UTILITY",
      status: "PENDING",
    });
    await review();
    expect(await findTemplate(actor.organizationId, template.id)).toMatchObject({ status: "approved", metaEvent: "APPROVED" });
    const log = await db().select().from(activityLogs).where(eq(activityLogs.organizationId, actor.organizationId));
    expect(log.map((l) => l.action)).toEqual(
      expect.arrayContaining(["Template created", "Template submitted to Meta", "Meta approved a template"]),
    );
  });

  it("a name with 'reject' is rejected with Meta's reason, and the edited template goes back to review", async () => {
    const { actor } = await connectedTenant();
    const template = await submitted(actor, { name: "reject_me_please" });
    await review();
    const rejected = await findTemplate(actor.organizationId, template.id);
    expect(rejected).toMatchObject({ status: "rejected" });
    expect(rejected!.rejectionReason).toMatch(/^INVALID_FORMAT/);
    const edited = await updateTemplate(actor, template.id, input({ body: "Habari {{1}}, order {{2}} ships today, asante." }), {
      submit: true,
    });
    expect(edited).toMatchObject({ ok: true, template: { status: "pending", rejectionReason: null } });
  });

  it("a name with 'recategorise' is approved, then moved from Utility to Marketing", async () => {
    const { actor } = await connectedTenant();
    const template = await submitted(actor, { name: "recategorise_offer" });
    await review();
    expect(await findTemplate(actor.organizationId, template.id)).toMatchObject({
      status: "approved",
      category: "MARKETING",
      previousCategory: "UTILITY",
    });
  });

  it("the same status twice, or an older one after a newer one, changes nothing", async () => {
    const { actor } = await connectedTenant();
    const template = await submitted(actor);
    await review();
    await meta.sandbox.setTemplateStatus(template.metaTemplateId!, "APPROVED");
    await meta.sandbox.flushWebhooks();
    await drainJobs();
    expect(await findTemplate(actor.organizationId, template.id)).toMatchObject({ status: "approved" });
  });

  it("sync repairs a missed webhook and imports a template made in Business Manager", async () => {
    const { actor, business } = await connectedTenant();
    const template = await submitted(actor);
    await review();
    await meta.sandbox.setTemplateStatus(template.metaTemplateId!, "PAUSED", { silent: true });
    const foreign = meta.sandbox.createTemplateAtMeta(business.wabaId, {
      name: "welcome_sw",
      language: "sw",
      category: "MARKETING",
      components: [{ type: "BODY", text: "Karibu Nyota Sacco! Tuko hapa kukusaidia." }],
    });
    expect(await findTemplate(actor.organizationId, template.id)).toMatchObject({ status: "approved" });
    const [outcome] = await syncOrganisationTemplates(actor.organizationId);
    expect(outcome).toMatchObject({ imported: 1, updated: 1, removed: 0 });
    expect(await findTemplate(actor.organizationId, template.id)).toMatchObject({ status: "paused" });
    const { rows } = await listTemplates(actor.organizationId, {});
    expect(rows.find((r) => r.name === "welcome_sw")).toMatchObject({ status: "approved", source: "meta", language: "sw" });
    expect(foreign.id).toBeTruthy();
    // Again: nothing left to do.
    expect((await syncOrganisationTemplates(actor.organizationId))[0]).toMatchObject({ imported: 0, updated: 0, removed: 0 });
  });

  it("ends a sync whose token Meta refuses (190) instead of retrying it, and skips accounts marked as refused", async () => {
    const { actor, account } = await connectedTenant("Baraka Dairy Farmers Sacco");
    await db().execute(
      sql`update whatsapp_accounts set access_token_encrypted = ${encryptSecret("EAAG-not-a-token")} where id = ${account.id}`,
    );
    await requestTemplateSync(account.id, undefined, 0);
    await drainJobs();
    const [job] = await queryRows<{ finished: boolean; attempts: number }>(
      db(),
      sql`select finished_at is not null as finished, attempts from jobs where queue = ${TEMPLATE_SYNC_QUEUE}`,
    );
    expect(job).toEqual({ finished: true, attempts: 1 });
    await db().execute(
      sql`update whatsapp_accounts set token_refused_at = now(), token_refusal = 'Invalid OAuth access token' where id = ${account.id}`,
    );
    expect(await syncOrganisationTemplates(actor.organizationId)).toEqual([]);
  });

  it("deletes at Meta too; a template deleted at Meta is removed here by the next sync", async () => {
    const { actor, business } = await connectedTenant();
    const kept = await submitted(actor);
    const other = await submitted(actor, { name: "payment_received" });
    expect(await deleteTemplate(actor, kept.id)).toEqual({ ok: true, atMeta: true });
    expect(await findTemplate(actor.organizationId, kept.id)).toBeUndefined();
    expect(meta.sandbox.templates(business.wabaId).map((t) => t.name)).toEqual(["payment_received"]);
    await meta.sandbox.deleteTemplateAtMeta(other.metaTemplateId!, { silent: true });
    expect((await syncOrganisationTemplates(actor.organizationId))[0]).toMatchObject({ removed: 1 });
    expect(await findTemplate(actor.organizationId, other.id)).toBeUndefined();
  });

  it("a Graph failure on submit keeps the draft with Meta's words; on delete keeps the template", async () => {
    const { actor, business } = await connectedTenant();
    meta.sandbox.injectFault({ step: "template.create", error: { code: 100, message: "Invalid parameter", status: 400 } });
    const result = await createTemplate(actor, input(), { submit: true });
    expect(result).toMatchObject({ ok: true, template: { status: "draft", metaTemplateId: null } });
    expect(result.ok && result.submitError).toMatch(/Invalid parameter/);
    expect(result.ok && result.template.lastError).toMatch(/Meta did not accept it: .*Invalid parameter/);
    const template = await submitted(actor, { name: "statement_ready" });
    meta.sandbox.injectFault({ step: "template.delete", error: { code: 100, message: "Template cannot be deleted", status: 400 } });
    expect(await deleteTemplate(actor, template.id)).toMatchObject({ ok: false, status: 502 });
    expect(await findTemplate(actor.organizationId, template.id)).toMatchObject({ lastError: expect.stringMatching(/cannot be deleted/) });
    expect(meta.sandbox.templates(business.wabaId).map((t) => t.name)).toContain("statement_ready");
  });

  it("copies as a new draft with a fresh name; a tenant without WhatsApp saves drafts and is told why it cannot submit", async () => {
    const { actor } = await connectedTenant();
    const template = await submitted(actor);
    const copy = await copyTemplate(actor, template.id);
    const second = await copyTemplate(actor, template.id);
    expect(copy).toMatchObject({ name: "order_update_copy", status: "draft", metaTemplateId: null });
    expect(second).toMatchObject({ name: "order_update_copy_2" });
    const lonely = await createVerifiedUser({ businessName: "Duka la Mama" });
    const lonelyActor = { organizationId: lonely.organization.id, userId: lonely.user.id };
    expect(await createTemplate(lonelyActor, input(), { submit: true })).toEqual({
      ok: false,
      problems: { form: TEMPLATE_MESSAGES.noAccount },
    });
    expect(await createTemplate(lonelyActor, input(), { submit: false })).toMatchObject({
      ok: true,
      template: { status: "draft", wabaId: null },
    });
    expect(await createTemplate(lonelyActor, input(), { submit: false })).toMatchObject({
      ok: false,
      problems: { name: expect.stringMatching(/already exists/) },
    });
  });

  it("never shows, copies, edits or deletes another tenant's template", async () => {
    const mine = await connectedTenant();
    const theirs = await connectedTenant("Kilimo Bora Ltd");
    const template = await submitted(theirs.actor);
    expect(await findTemplate(mine.actor.organizationId, template.id)).toBeUndefined();
    expect(await copyTemplate(mine.actor, template.id)).toBeUndefined();
    expect(await deleteTemplate(mine.actor, template.id)).toMatchObject({ ok: false, status: 404 });
    expect(await updateTemplate(mine.actor, template.id, input(), { submit: false })).toMatchObject({ ok: false, status: 404 });
    expect((await listTemplates(mine.actor.organizationId, {})).rows).toEqual([]);
    expect(await findTemplate(theirs.actor.organizationId, template.id)).toMatchObject({ status: "pending" });
  });
});
