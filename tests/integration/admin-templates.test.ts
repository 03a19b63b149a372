import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { messageTemplates } from "~/.server/infrastructure/db/schema";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { countAdminActions } from "~/.server/domains/admin/audit";
import { createTemplate, updateTemplate, type Actor } from "~/.server/domains/templates/manage";
import { findTemplate } from "~/.server/domains/templates/queries";
import { listApiTemplates } from "~/.server/adapters/api-v1/templates";
import { TemplatesQuery } from "~/.server/adapters/api-v1/schemas";
import { toMetaComponents, type TemplateInput } from "~/lib/templates";
import { loader as listLoader, action as listAction } from "~/routes/admin/templates";
import { loader as reviewLoader, action as reviewAction } from "~/routes/admin/template";
import { loader as exportLoader } from "~/routes/admin/templates-export";
import { loader as sampleLoader } from "~/routes/admin/template-header-sample";
import { attachSample, storeSample } from "~/.server/domains/templates/media";
import { demoPosterPng } from "~/.server/demo/seed-media";
import { loader as tenantTemplatesLoader } from "~/routes/app/templates/index";
import { createSignup } from "~/.server/domains/auth/signup";
import { detailsInWords } from "~/.server/domains/activity/words";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { createVerifiedUser, META, signedInCookie, uniqueEmail } from "../support/accounts";
import { formRequest, getRequest, routeArgs, run } from "../support/http";
import { metaSandboxForFile } from "../support/meta-harness";

/**
 * Issue 19, the Templates tab: figures and the submissions table across tenants, the Review page,
 * and the platform's hold: a held tenant's submission never reaches Meta until an administrator
 * approves it (then through the tenant's own submission code), or returns it with a reason the
 * tenant sees. Meta's side is the Graph sandbox; what it received is read from it.
 */

const meta = metaSandboxForFile();

const input = (change: Partial<TemplateInput> = {}): TemplateInput => ({
  name: "order_update",
  category: "UTILITY",
  language: "en",
  headerFormat: "NONE",
  body: "Habari {{1}}, your order {{2}} ships today.",
  bodyExamples: ["Amina", "KE-1042"],
  buttons: [],
  ...change,
});

async function admin() {
  const account = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

async function connectedTenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  const { wabaId } = await meta.graph.connect(user.organization.id, name);
  const actor: Actor = { organizationId: user.organization.id, userId: user.user.id };
  return { user, wabaId, actor, cookie: await signedInCookie(user.email, user.password) };
}

/** Runs a route handler with path parameters (the harness's run() passes none). */
function withParams(handler: (args: never) => unknown, params: Record<string, string>) {
  return (args: { request: Request }) => handler(routeArgs(args.request, params));
}

const listPage = (cookie: string, query = "") => run(listLoader, getRequest(`/admin/templates${query}`, { cookie }));
const reviewPage = (cookie: string, id: string) => run(withParams(reviewLoader, { id }), getRequest(`/admin/templates/${id}`, { cookie }));
const decide = (cookie: string, id: string, fields: Record<string, string>) =>
  run(withParams(reviewAction, { id }), formRequest(`/admin/templates/${id}`, fields, { cookie }));

async function insertTemplate(organizationId: string, change: Partial<TemplateInput> & { status: string; submittedAt?: Date }) {
  const { status, submittedAt, ...rest } = change;
  const template = input(rest);
  const [row] = await db()
    .insert(messageTemplates)
    .values({
      organizationId,
      name: template.name,
      language: template.language,
      category: template.category,
      status: status as never,
      components: toMetaComponents(template),
      submittedAt: submittedAt ?? new Date(),
    })
    .returning();
  return row!;
}

async function events(templateId: string) {
  return queryRows<{ source: string; event: string; reason: string | null }>(
    db(),
    sql`select source, event, reason from template_events where template_id = ${templateId} order by id`,
  );
}

async function review() {
  await meta.sandbox.reviewTemplatesNow();
  await meta.sandbox.flushWebhooks();
  await drainJobs();
}

describe("the Templates tab", () => {
  it("counts by status, type and language, and filters, searches, sorts and pages the submissions across tenants", async () => {
    const { cookie } = await admin();
    const before = (await listPage(cookie)).data.figures;
    const kilimo = await createVerifiedUser({ businessName: "Kilimo Bora Agrovet" });
    const safari = await createVerifiedUser({ businessName: "Safari Tours Kenya" });
    await insertTemplate(kilimo.organization.id, { name: "mbegu_tangazo", status: "held", category: "MARKETING", language: "sw" });
    await insertTemplate(kilimo.organization.id, { name: "order_ready", status: "approved", category: "UTILITY", language: "en" });
    await insertTemplate(safari.organization.id, { name: "offre_safari", status: "rejected", category: "MARKETING", language: "fr" });
    await insertTemplate(safari.organization.id, { name: "booking_code", status: "pending", category: "AUTHENTICATION", language: "en" });

    const page = await listPage(cookie);
    expect(page.status).toBe(200);
    const after = page.data.figures;
    expect(after.total - before.total).toBe(4);
    expect(after.byStatus.held - before.byStatus.held).toBe(1);
    expect(after.byStatus.approved - before.byStatus.approved).toBe(1);
    expect(after.byStatus.rejected - before.byStatus.rejected).toBe(1);
    expect(after.byStatus.pending - before.byStatus.pending).toBe(1);
    expect(after.byCategory.MARKETING - before.byCategory.MARKETING).toBe(2);
    expect(after.byCategory.AUTHENTICATION - before.byCategory.AUTHENTICATION).toBe(1);
    const lang = (figures: typeof after, code: string) =>
      figures.byLanguage.find((l: { language: string }) => l.language === code)?.count ?? 0;
    expect(lang(after, "fr") - lang(before, "fr")).toBe(1);
    expect(lang(after, "sw") - lang(before, "sw")).toBe(1);
    expect(lang(after, "en") - lang(before, "en")).toBe(2);

    // The held one waits in the queue; search by business, filters by status, type and language.
    expect(page.data.queue.map((r: { name: string }) => r.name)).toContain("mbegu_tangazo");
    const byBusiness = await listPage(cookie, "?q=safari%20tours");
    expect(byBusiness.data.page.rows.map((r: { name: string }) => r.name).sort()).toEqual(["booking_code", "offre_safari"]);
    const byName = await listPage(cookie, "?q=MBEGU");
    expect(byName.data.page.rows).toEqual([
      expect.objectContaining({
        name: "mbegu_tangazo",
        business: "Kilimo Bora Agrovet",
        status: "held",
        category: "MARKETING",
        language: "sw",
      }),
    ]);
    expect((await listPage(cookie, "?status=held&q=kilimo")).data.page.rows).toHaveLength(1);
    expect((await listPage(cookie, "?type=MARKETING&language=fr")).data.page.rows.map((r: { name: string }) => r.name)).toEqual([
      "offre_safari",
    ]);
    // Unknown filter values are ignored, not an error.
    expect((await listPage(cookie, "?status=nonsense&type=x&sort=evil&after=garbage")).status).toBe(200);

    // Sorted by name, two to a page, forward and back by keyset.
    const names = async (query: string) => (await listPage(cookie, query)).data;
    const sorted = await names("?org=" + safari.organization.id + "&sort=name&dir=asc");
    expect(sorted.page.rows.map((r: { name: string }) => r.name)).toEqual(["booking_code", "offre_safari"]);
    const { adminTemplatePage, readAdminTemplateFilters } = await import("~/.server/domains/admin/templates/queries");
    const filters = readAdminTemplateFilters(new URLSearchParams("q=o&sort=business&dir=asc"));
    const first = await adminTemplatePage({ kind: "platform" }, filters, {}, 2);
    const second = await adminTemplatePage({ kind: "platform" }, filters, { after: first.older }, 2);
    const back = await adminTemplatePage({ kind: "platform" }, filters, { before: second.newer }, 2);
    expect(back.rows.map((r) => r.id)).toEqual(first.rows.map((r) => r.id));
    expect(second.rows.map((r) => r.id)).not.toContain(first.rows[0]!.id);
    const all = [...first.rows, ...second.rows].map((r) => r.business);
    expect([...all].sort((a, b) => a.localeCompare(b))).toEqual(all);

    // Export Data: the table with the page's filters.
    const csv = await run(exportLoader, getRequest("/admin/templates/export.csv?q=safari%20tours&type=MARKETING", { cookie }));
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/text\/csv/);
    const lines = String(csv.data).trim().split(/\r?\n/);
    expect(lines[0]).toContain('"Name","Business","Organisation ID","Type","Status","Submitted","Language"');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('"offre_safari","Safari Tours Kenya"');
    expect(lines[1]).toContain('"Marketing (Marketing)","Rejected"');
  });

  it("answers 404 to tenants and visitors, and for an unknown or malformed template id", async () => {
    const { cookie } = await admin();
    const tenant = await createVerifiedUser({ businessName: "Duka la Mama" });
    const tenantCookie = await signedInCookie(tenant.email, tenant.password);
    const template = await insertTemplate(tenant.organization.id, { name: "duka_offer", status: "held" });
    expect((await listPage(tenantCookie)).status).toBe(404);
    expect((await run(listLoader, getRequest("/admin/templates"))).status).toBe(404);
    expect((await reviewPage(tenantCookie, template.id)).status).toBe(404);
    expect((await decide(tenantCookie, template.id, { intent: "approve" })).status).toBe(404);
    expect((await run(exportLoader, getRequest("/admin/templates/export.csv", { cookie: tenantCookie }))).status).toBe(404);
    expect((await reviewPage(cookie, "7f1b2c3d-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await reviewPage(cookie, "not-a-uuid")).status).toBe(404);
    expect((await reviewPage(cookie, template.id)).status).toBe(200);
    expect(await findTemplate(tenant.organization.id, template.id)).toMatchObject({ status: "held" });
  });

  it("holds a tenant's submission without calling Meta; approving sends it through the same code, pending at Meta", async () => {
    const { cookie, user: adminUser } = await admin();
    const tenant = await connectedTenant("Mwangaza Microfinance");

    // The administrator holds the organisation (audited), by its business ID.
    const hold = await run(
      listAction,
      formRequest(
        "/admin/templates",
        { intent: "hold", organisation: tenant.user.organization.businessId, reason: "New tenant" },
        { cookie },
      ),
    );
    expect(hold.status).toBe(302);
    expect(await countAdminActions("template.hold", tenant.user.organization.id)).toBe(1);
    const [record] = await queryRows<{ admin_email: string; reason: string; after: unknown }>(
      db(),
      sql`select admin_email, reason, after from admin_audit_log where action = 'template.hold' and target_id = ${tenant.user.organization.id}`,
    );
    expect(record).toMatchObject({ admin_email: adminUser.email, reason: "New tenant", after: { templateReview: true } });

    // The tenant submits: held, and the sandbox received nothing.
    const result = await createTemplate(tenant.actor, input({ name: "loan_approved" }), { submit: true });
    expect(result).toMatchObject({ ok: true, template: { status: "held", metaTemplateId: null, wabaId: tenant.wabaId } });
    const template = result.ok ? result.template : undefined;
    expect(meta.sandbox.templates(tenant.wabaId)).toEqual([]);
    expect((await events(template!.id)).map((e) => `${e.source}:${e.event}`)).toEqual(["tenant:submitted", "platform:held"]);

    // The tenant's list and the API's list show it as held.
    const mine = await run(tenantTemplatesLoader, getRequest("/templates?status=held", { cookie: tenant.cookie }));
    expect(mine.data.page.rows.map((r: { name: string }) => r.name)).toEqual(["loan_approved"]);
    expect(mine.data.counts.held).toBe(1);
    const query = TemplatesQuery.parse({ status: "held" });
    const api = await listApiTemplates(tenant.actor.organizationId, query);
    expect(api.data).toEqual([expect.objectContaining({ name: "loan_approved", status: "held", platformRejection: null })]);

    // The Review page shows it with its history; approving sends it to Meta.
    const page = await reviewPage(cookie, template!.id);
    expect(page.data.template).toMatchObject({ status: "held", name: "loan_approved" });
    expect(page.data.preview.body).toContain("Habari");
    expect(page.data.history.map((e: { words: string }) => e.words)).toEqual(["Submitted for review", "Held for Jumbe's review"]);
    const approved = await decide(cookie, template!.id, { intent: "approve" });
    expect(approved.status).toBe(302);
    const atMeta = meta.sandbox.templates(tenant.wabaId);
    expect(atMeta).toEqual([expect.objectContaining({ name: "loan_approved", status: "PENDING" })]);
    const stored = await findTemplate(tenant.actor.organizationId, template!.id);
    expect(stored).toMatchObject({ status: "pending", metaTemplateId: atMeta[0]!.id, platformReviewedBy: adminUser.id });
    expect(stored!.platformReviewedAt).toBeInstanceOf(Date);
    expect(await countAdminActions("template.approve", template!.id)).toBe(1);

    // Approving again is refused: it is no longer held.
    const again = await decide(cookie, template!.id, { intent: "approve" });
    expect(again.status).toBe(409);
    expect(meta.sandbox.templates(tenant.wabaId)).toHaveLength(1);

    // Meta's decision arrives by webhook and is written to the history.
    await review();
    expect(await findTemplate(tenant.actor.organizationId, template!.id)).toMatchObject({ status: "approved" });
    expect((await events(template!.id)).map((e) => `${e.source}:${e.event}`)).toEqual([
      "tenant:submitted",
      "platform:held",
      "meta:sent",
      "platform:approved",
      "meta:APPROVED",
    ]);
  });

  it("rejecting needs a reason, and the tenant sees it; an edit goes back to the review", async () => {
    const { cookie } = await admin();
    const tenant = await connectedTenant("Kilimo Bora Agrovet");
    await run(listAction, formRequest("/admin/templates", { intent: "hold", organisation: tenant.user.email }, { cookie }));
    const result = await createTemplate(tenant.actor, input({ name: "harvest_promise", category: "MARKETING" }), { submit: true });
    const id = result.ok ? result.template.id : "";

    const empty = await decide(cookie, id, { intent: "reject", reason: "   " });
    expect(empty.status).toBe(400);
    expect(empty.data.result.error.reason[0]).toMatch(/Give the reason/);
    expect(await findTemplate(tenant.actor.organizationId, id)).toMatchObject({ status: "held", platformRejection: null });
    expect(await countAdminActions("template.reject", id)).toBe(0);

    const reason = "Remove the promise of guaranteed harvests.";
    expect((await decide(cookie, id, { intent: "reject", reason })).status).toBe(302);
    expect(await findTemplate(tenant.actor.organizationId, id)).toMatchObject({ status: "rejected", platformRejection: reason });
    expect(meta.sandbox.templates(tenant.wabaId)).toEqual([]);
    expect(await countAdminActions("template.reject", id)).toBe(1);

    // The tenant's list and the template's dialog show the reason.
    const list = await run(tenantTemplatesLoader, getRequest("/templates", { cookie: tenant.cookie }));
    expect(list.data.page.rows).toEqual([expect.objectContaining({ status: "rejected", platformRejection: reason })]);
    const dialog = await run(tenantTemplatesLoader, getRequest(`/templates?dialog=view&template=${id}`, { cookie: tenant.cookie }));
    expect(dialog.data.selected).toMatchObject({ status: "rejected", platformRejection: reason });

    // A decided template shows its history read-only and cannot be decided again.
    const page = await reviewPage(cookie, id);
    expect(page.data.history.map((e: { words: string }) => e.words)).toContain("Returned by Jumbe's review");
    expect((await decide(cookie, id, { intent: "reject", reason: "again" })).status).toBe(409);

    // The tenant edits it: held again, still not at Meta.
    const edited = await updateTemplate(tenant.actor, id, input({ name: "harvest_offer", category: "MARKETING" }), { submit: true });
    expect(edited).toMatchObject({ ok: true, template: { status: "held", platformRejection: null } });
    expect(meta.sandbox.templates(tenant.wabaId)).toEqual([]);
  });

  it("if Meta refuses an approved template it stays held with Meta's words; releasing the hold is audited and sends straight to Meta", async () => {
    const { cookie } = await admin();
    const tenant = await connectedTenant("Pwani Fresh Fish");
    const org = tenant.user.organization.id;
    await run(listAction, formRequest("/admin/templates", { intent: "hold", organisation: org }, { cookie }));
    const held = await createTemplate(tenant.actor, input({ name: "catch_of_the_day" }), { submit: true });
    const id = held.ok ? held.template.id : "";
    meta.sandbox.injectFault({ step: "template.create", error: { code: 100, message: "Invalid parameter", status: 400 } });
    const refused = await decide(cookie, id, { intent: "approve" });
    expect(refused.status).toBe(302);
    const stored = await findTemplate(org, id);
    expect(stored).toMatchObject({ status: "held", platformReviewedAt: null });
    expect(stored!.lastError).toMatch(/Meta did not accept it: .*Invalid parameter/);
    // Tried again once Meta accepts: sent.
    expect((await decide(cookie, id, { intent: "approve" })).status).toBe(302);
    expect(await findTemplate(org, id)).toMatchObject({ status: "pending", lastError: null });
    expect(await countAdminActions("template.approve", id)).toBe(2);

    // Release (from the Review page): audited, and the next submission goes straight to Meta.
    expect((await decide(cookie, id, { intent: "release" })).status).toBe(302);
    expect(await countAdminActions("template.release", org)).toBe(1);
    const direct = await createTemplate(tenant.actor, input({ name: "weekly_prices" }), { submit: true });
    expect(direct).toMatchObject({ ok: true, template: { status: "pending" } });
    expect(
      meta.sandbox
        .templates(tenant.wabaId)
        .map((t) => t.name)
        .sort(),
    ).toEqual(["catch_of_the_day", "weekly_prices"]);

    // An unknown organisation is a clear 400, nothing audited.
    const unknown = await run(listAction, formRequest("/admin/templates", { intent: "hold", organisation: "JMB-NOPE0000" }, { cookie }));
    expect(unknown.status).toBe(400);
    expect(unknown.data.result.error.organisation[0]).toMatch(/No organisation/);
  });

  it("writes Meta's webhook events to the history, and holds a tenant whose template Meta flags", async () => {
    const tenant = await connectedTenant("Soko Huru Traders");
    const result = await createTemplate(tenant.actor, input({ name: "market_day" }), { submit: true });
    const template = result.ok ? result.template : undefined;
    await review();
    await meta.sandbox.setTemplateStatus(template!.metaTemplateId!, "FLAGGED");
    await meta.sandbox.flushWebhooks();
    await drainJobs();
    const history = await events(template!.id);
    expect(history.map((e) => `${e.source}:${e.event}`)).toEqual(
      expect.arrayContaining(["meta:sent", "meta:APPROVED", "meta:FLAGGED", "platform:organisation_held"]),
    );
    const [org] = await queryRows<{ template_review: boolean }>(
      db(),
      sql`select template_review from organizations where id = ${tenant.actor.organizationId}`,
    );
    expect(org!.template_review).toBe(true);
    // The log's line in English as stored, and in its reader's language (issue 43).
    const [held] = await queryRows<{ details: string }>(
      db(),
      sql`select details from activity_logs where organization_id = ${tenant.actor.organizationId} and action = 'Template submissions held for review'`,
    );
    expect(held!.details).toBe("Meta flagged market_day. Jumbe now reviews new templates before they go to Meta.");
    expect(inLocale("sw", () => detailsInWords(held!.details))).toBe(
      "Meta imeonya kuhusu kiolezo market_day. Sasa Jumbe inakagua violezo vipya kabla havijatumwa kwa Meta.",
    );
    const next = await createTemplate(tenant.actor, input({ name: "market_day_two" }), { submit: true });
    expect(next).toMatchObject({ ok: true, template: { status: "held" } });
  });
});

describe("holding new organisations' submissions (a platform setting)", () => {
  const setting = (cookie: string, hold: string, reason = "") =>
    run(listAction, formRequest("/admin/templates", { intent: "new-organisations", hold, reason }, { cookie }));
  const settingRecords = () =>
    queryRows<{ action: string; admin_email: string; reason: string | null; target_type: string; before: unknown; after: unknown }>(
      db(),
      sql`select action, admin_email, reason, target_type, before, after from admin_audit_log
          where target_id = 'templates.hold_new_organisations' order by id`,
    );
  /** A business signing up as anyone does (the sign-up form's code), then connecting WhatsApp. */
  async function signedUp(businessName: string) {
    const email = uniqueEmail("signup");
    expect(await createSignup({ firstName: "Wanjiru", lastName: "Mwangi", businessName, email, password: "Karibu#2026" }, META)).toEqual({
      ok: true,
      email,
    });
    const [row] = await queryRows<{ organization_id: string; user_id: string; template_review: boolean }>(
      db(),
      sql`select u.organization_id, u.id as user_id, o.template_review from users u join organizations o on o.id = u.organization_id
          where u.email = ${email}`,
    );
    const { wabaId } = await meta.graph.connect(row!.organization_id, businessName);
    const actor: Actor = { organizationId: row!.organization_id, userId: row!.user_id };
    return { actor, wabaId, templateReview: row!.template_review };
  }

  it("when on, a new sign-up's submission is held and never reaches Meta; off (the default), it goes straight to Meta; each change audited", async () => {
    const { cookie, user: adminUser, organization: platform } = await admin();
    const before = await connectedTenant("Kilimo Bora Agrovet");
    expect((await listPage(cookie)).data.holdNew).toBe(false);

    // Off by default: a sign-up's submission goes to Meta.
    const early = await signedUp("Tumaini Pharmacy");
    expect(early.templateReview).toBe(false);
    expect(await createTemplate(early.actor, input({ name: "refill_ready" }), { submit: true })).toMatchObject({
      ok: true,
      template: { status: "pending" },
    });
    expect(meta.sandbox.templates(early.wabaId).map((t) => t.name)).toEqual(["refill_ready"]);

    // On: audited with before and after; the tab shows it; saying it again changes and records nothing.
    const on = await setting(cookie, "on", "Launch week: many new sign-ups");
    expect(on.status).toBe(302);
    expect(on.location).toBe("/admin/templates");
    expect((await listPage(cookie)).data.holdNew).toBe(true);
    expect((await setting(cookie, "on")).status).toBe(302);
    expect(await settingRecords()).toEqual([
      {
        action: "template.hold_new_organisations",
        admin_email: adminUser.email,
        reason: "Launch week: many new sign-ups",
        target_type: "platform_setting",
        before: { holdNewOrganisations: false },
        after: { holdNewOrganisations: true },
      },
    ]);

    // A new sign-up starts held: its submission waits for the platform's review, nothing reaches Meta.
    const held = await signedUp("Baraka Boda Spares");
    expect(held.templateReview).toBe(true);
    const submitted = await createTemplate(held.actor, input({ name: "spares_in_stock" }), { submit: true });
    expect(submitted).toMatchObject({ ok: true, template: { status: "held", metaTemplateId: null } });
    expect(meta.sandbox.templates(held.wabaId)).toEqual([]);
    expect((await listPage(cookie, "?status=held")).data.page.rows.map((r: { name: string }) => r.name)).toEqual(["spares_in_stock"]);
    // Organisations already there, and the platform's own, are not affected.
    expect(await createTemplate(before.actor, input({ name: "seeds_arrived" }), { submit: true })).toMatchObject({
      ok: true,
      template: { status: "pending" },
    });
    const [platformOrg] = await queryRows<{ template_review: boolean }>(
      db(),
      sql`select template_review from organizations where id = ${platform.id}`,
    );
    expect(platformOrg!.template_review).toBe(false);

    // Off again (audited): the next sign-up goes straight to Meta; the held one stays held until released, as any.
    expect((await setting(cookie, "off", "Launch week over")).status).toBe(302);
    expect((await listPage(cookie)).data.holdNew).toBe(false);
    expect((await settingRecords()).map((r) => [r.action, r.before, r.after])).toEqual([
      ["template.hold_new_organisations", { holdNewOrganisations: false }, { holdNewOrganisations: true }],
      ["template.release_new_organisations", { holdNewOrganisations: true }, { holdNewOrganisations: false }],
    ]);
    const late = await signedUp("Neema Salon");
    expect(late.templateReview).toBe(false);
    expect(await createTemplate(late.actor, input({ name: "booking_confirmed" }), { submit: true })).toMatchObject({
      ok: true,
      template: { status: "pending" },
    });
    expect(meta.sandbox.templates(held.wabaId)).toEqual([]);
    expect(
      (await run(listAction, formRequest("/admin/templates", { intent: "release", organisation: held.actor.organizationId }, { cookie })))
        .status,
    ).toBe(302);
    expect(await createTemplate(held.actor, input({ name: "new_helmets" }), { submit: true })).toMatchObject({
      ok: true,
      template: { status: "pending" },
    });
    expect(meta.sandbox.templates(held.wabaId).map((t) => t.name)).toEqual(["new_helmets"]);
  });

  it("refuses a missing choice with a clear 400; answers 404 to a tenant or a visitor; changes nothing", async () => {
    const { cookie } = await admin();
    for (const hold of ["", "maybe"]) {
      const bad = await setting(cookie, hold);
      expect(bad.status).toBe(400);
      expect(bad.data.result.error.hold).toEqual(["Choose whether new organisations' submissions are held."]);
    }
    const tenant = await connectedTenant("Mama Mboga Online");
    for (const cookie of [tenant.cookie, undefined]) {
      const refused = await run(
        listAction,
        formRequest("/admin/templates", { intent: "new-organisations", hold: "on" }, cookie ? { cookie } : {}),
      );
      expect(refused.status).toBe(404);
    }
    expect(await queryRows(db(), sql`select key from platform_settings`)).toEqual([]);
    expect(await settingRecords()).toEqual([]);
  });
});

describe("a media header's sample on the review page", () => {
  const sampleOf = (cookie: string | undefined, id: string) =>
    sampleLoader(routeArgs(getRequest(`/admin/templates/${id}/header-sample`, cookie ? { cookie } : {}), { id })).catch(
      (thrown: unknown) => thrown,
    ) as Promise<unknown>;
  const statusOf = (answer: unknown) =>
    answer instanceof Response ? answer.status : (answer as { init?: { status?: number } }).init?.status;

  it("shows the administrator the stored image, and answers 404 to members, visitors and a template without one", async () => {
    const { cookie } = await admin();
    const tenant = await createVerifiedUser({ businessName: "Kilimo Bora Agrovet" });
    const member = await signedInCookie(tenant.email, tenant.password);
    const bytes = demoPosterPng();
    const template = await insertTemplate(tenant.organization.id, {
      name: "dap_offer_poster",
      status: "held",
      category: "MARKETING",
      headerFormat: "IMAGE",
    });
    const stored = await storeSample(tenant.organization.id, { fileName: "dap offer.png", contentType: "image/png", bytes });
    expect(await attachSample(tenant.organization.id, stored.id, template.id)).toBe(true);

    // The review page's preview and link point at the console's route.
    const page = await reviewPage(cookie, template.id);
    expect(page.status).toBe(200);
    const url = `/admin/templates/${template.id}/header-sample`;
    expect(page.data.preview.media).toEqual({ format: "IMAGE", src: url, fileName: "dap offer.png" });
    expect(page.data.sample).toEqual({ url, fileName: "dap offer.png", format: "IMAGE", size: bytes.length });

    const answer = (await sampleOf(cookie, template.id)) as Response;
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("image/png");
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    expect(answer.headers.get("content-disposition")).toBe('inline; filename="dap_offer.png"');
    expect(Buffer.from(await answer.arrayBuffer()).equals(bytes)).toBe(true);

    // The tenant's own member (who sees it at /templates/:id/sample) and a visitor: 404 here.
    expect(statusOf(await sampleOf(member, template.id))).toBe(404);
    expect(statusOf(await sampleOf(undefined, template.id))).toBe(404);

    // A template without a sample, and an unknown id: 404 for the administrator too.
    const plain = await insertTemplate(tenant.organization.id, { name: "plain_text", status: "held" });
    expect(statusOf(await sampleOf(cookie, plain.id))).toBe(404);
    expect((await reviewPage(cookie, plain.id)).data.sample).toBeNull();
    expect(statusOf(await sampleOf(cookie, "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f"))).toBe(404);
    expect(statusOf(await sampleOf(cookie, "not-an-id"))).toBe(404);
  });
});
