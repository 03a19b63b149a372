import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { hashPassword } from "~/.server/domains/auth/password";
import { signedInPages } from "~/.server/domains/auth/guards";
import { createCampaign, resumeCampaign, type CampaignInput } from "~/.server/domains/campaigns/lifecycle";
import { feedCampaigns } from "~/.server/domains/campaigns/feeder";
import { saveContact } from "~/.server/domains/contacts/manage";
import { inviteMember } from "~/.server/domains/team/invitations";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { queueMessage } from "~/.server/domains/messaging/queue";
import { closingSendsNothing } from "~/.server/domains/messaging/refusals";
import { storeUploadedMedia } from "~/.server/domains/messaging/media-files";
import { fileStorage, StorageNotFoundError } from "~/.server/infrastructure/storage";
import { GRACE_DAYS, reopenOrganisation } from "~/.server/domains/organisation/closing";
import { eraseDueOrganisations } from "~/.server/domains/organisation/erasure";
import { ORGANISATION_REFUSALS } from "~/.server/domains/organisation/refusals";
import { ORGANISATION_MESSAGES } from "~/lib/schemas/organisation";
import * as keyApi from "~/routes/api/developer.api-key";
import * as layout from "~/routes/app/layout";
import * as settingsIndex from "~/routes/app/settings/index";
import * as organisationPage from "~/routes/app/settings/organisation";
import * as accountPage from "~/routes/app/settings/account";
import { createVerifiedUser, META, signedInCookie, uniqueEmail } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";
import { startApiV1Server } from "../support/api-v1-server";
import { metaSandboxForFile, refusalOf } from "../support/meta-harness";
import { approvedBodyTemplate, metaReceived, recipient } from "../support/sending-kit";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { detailsInWords } from "~/.server/domains/activity/words";

// Issue 15, Account Settings: the organisation's details (owners and admins), and closing the
// organisation (the owner): 30 days in which nothing is sent and every page says when the data
// goes, reopening, and the erasure after (decision 032).

const DAY = 24 * 3600_000;

let apiServer: Awaited<ReturnType<typeof startApiV1Server>>;
beforeAll(async () => {
  apiServer = await startApiV1Server();
});
afterAll(async () => {
  await apiServer.close();
});
afterEach(() => vi.useRealTimers());
const meta = metaSandboxForFile({ appUrl: () => apiServer.base });

/** An owner whose organisation has a connected WhatsApp number, signed in, with their API key. */
async function tenant(name = "Nyota Savings Sacco") {
  const owner = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(owner.email, owner.password);
  const key = (await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }))).data.key as string;
  const connection = await meta.graph.connect(owner.organization.id, name);
  return { ...owner, organizationId: owner.organization.id, userId: owner.user.id, cookie, key, ...connection };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** A member of the tenant's organisation with `role`, signed in. */
async function member(t: { organizationId: string }, role: "admin" | "agent" | "viewer") {
  const email = uniqueEmail(role);
  const password = "Member#Pass2026";
  await rawQuery(
    `insert into users (organization_id, email, first_name, last_name, password_hash, is_verified, org_role)
     values ($1, $2, 'Wanjiru', 'Kamau', $3, true, $4)`,
    [t.organizationId, email, await hashPassword(password), role],
  );
  return { email, password, cookie: await signedInCookie(email, password) };
}

const organisationRow = async (id: string) =>
  (
    await rawQuery<{
      name: string;
      kra_pin: string | null;
      postal_address: string | null;
      county: string | null;
      industry: string | null;
      time_zone: string;
      default_locale: string;
      closure_requested_at: Date | null;
      closure_requested_by: string | null;
      erase_after: Date | null;
    }>(`select * from organizations where id = $1`, [id])
  )[0];

const activity = async (organizationId: string) =>
  (
    await rawQuery<{ action: string; details: string; type: string }>(
      `select action, details, type from activity_logs where organization_id = $1 order by created_at, id`,
      [organizationId],
    )
  ).map((a) => `${a.type}: ${a.action}`);

const GOOD = {
  name: "Nyota Savings Sacco Ltd",
  kraPin: " p051 874 263k ",
  postalAddress: "P.O. Box 2145-20100,   Nakuru",
  county: "Nakuru",
  industry: "sacco",
  timeZone: "Africa/Nairobi",
};

const saveDetails = (cookie: string, fields: Record<string, string>) =>
  run(organisationPage.action, formRequest("/settings/organisation", fields, { cookie }));

const closeRequest = (cookie: string, fields: Record<string, string>) =>
  run(accountPage.action, formRequest("/settings/account", { intent: "close", ...fields }, { cookie }));
const reopenRequest = (cookie: string, password: string) =>
  run(accountPage.action, formRequest("/settings/account", { intent: "reopen", password }, { cookie }));

async function campaignRefusal(work: Promise<unknown>) {
  try {
    await work;
  } catch (error) {
    if (isRefusal(error, "campaign")) return { status: error.status, code: error.code, field: error.field, message: error.message };
    throw error;
  }
  throw new Error("it was accepted");
}

describe("the organisation's language for e-mails (issue 43)", () => {
  it("is saved with the details, logged, kept when a form leaves it out, and refused when it is not a language Jumbe speaks", async () => {
    const owner = await createVerifiedUser({ businessName: "Chama cha Akiba" });
    const cookie = await signedInCookie(owner.email, owner.password);
    expect((await saveDetails(cookie, { ...GOOD, defaultLocale: "sw" })).location).toBe("/settings/organisation");
    expect(await organisationRow(owner.organization.id)).toMatchObject({ default_locale: "sw" });
    const [log] = await rawQuery<{ details: string }>(
      `select details from activity_logs where organization_id = $1 and type = 'settings' order by created_at desc limit 1`,
      [owner.organization.id],
    );
    expect(log?.details).toContain("e-mail language");
    // A form without the field (an older page) changes nothing of it.
    await saveDetails(cookie, { ...GOOD, name: "Chama cha Akiba Ltd" });
    expect(await organisationRow(owner.organization.id)).toMatchObject({ default_locale: "sw", name: "Chama cha Akiba Ltd" });
    const refused = await saveDetails(cookie, { ...GOOD, defaultLocale: "de" });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.data)).toContain(ORGANISATION_MESSAGES.language);
    expect(await organisationRow(owner.organization.id)).toMatchObject({ default_locale: "sw" });
    const page = await run(organisationPage.loader, getRequest("/settings/organisation", { cookie }));
    expect(page.data.details.defaultLocale).toBe("sw");
  });
});

describe("the organisation's details", () => {
  it("saves the details with the KRA PIN normalised, logs which fields changed, and shows them again", async () => {
    const owner = await createVerifiedUser({ businessName: "Nyota Sacco" });
    const cookie = await signedInCookie(owner.email, owner.password);
    // Account Settings opens here for an owner.
    expect((await run(settingsIndex.loader, getRequest("/settings", { cookie }))).location).toBe("/settings/organisation");

    const saved = await saveDetails(cookie, GOOD);
    expect(saved.location).toBe("/settings/organisation");
    expect(await organisationRow(owner.organization.id)).toMatchObject({
      name: "Nyota Savings Sacco Ltd",
      kra_pin: "P051874263K",
      postal_address: "P.O. Box 2145-20100, Nakuru",
      county: "Nakuru",
      industry: "sacco",
      time_zone: "Africa/Nairobi",
    });
    const [log] = await rawQuery<{ action: string; details: string }>(
      `select action, details from activity_logs where organization_id = $1 and type = 'settings'`,
      [owner.organization.id],
    );
    expect(log).toEqual({
      action: "Organisation details updated",
      details: "Changed name, KRA PIN, postal address, county and industry; the name is now Nyota Savings Sacco Ltd",
    });
    // The fields in the log's reader's words, joined as the language joins a list (issue 43).
    expect(inLocale("sw", () => detailsInWords(log!.details))).toBe(
      "Mabadiliko: jina, PIN ya KRA, anwani ya posta, kaunti na sekta; jina sasa ni Nyota Savings Sacco Ltd",
    );
    const page = await run(organisationPage.loader, getRequest("/settings/organisation", { cookie }));
    expect(page.data.details).toEqual({
      name: "Nyota Savings Sacco Ltd",
      kraPin: "P051874263K",
      postalAddress: "P.O. Box 2145-20100, Nakuru",
      county: "Nakuru",
      industry: "sacco",
      timeZone: "Africa/Nairobi",
      defaultLocale: "en",
    });
    // The name is the user menu's business name.
    expect((await run(layout.loader, getRequest("/dashboard", { cookie }))).data.user.businessName).toBe("Nyota Savings Sacco Ltd");

    // Empty optional fields clear; any zone the runtime knows is accepted, not only the listed ones.
    expect((await saveDetails(cookie, { name: "Nyota Sacco", timeZone: "Europe/London" })).location).toBe("/settings/organisation");
    expect(await organisationRow(owner.organization.id)).toMatchObject({
      name: "Nyota Sacco",
      kra_pin: null,
      postal_address: null,
      county: null,
      industry: null,
      time_zone: "Europe/London",
    });
    expect((await saveDetails(cookie, { name: "Nyota Sacco", timeZone: "UTC" })).location).toBe("/settings/organisation");
    expect((await organisationRow(owner.organization.id))?.time_zone).toBe("UTC");
  });

  it.each([
    ["a KRA PIN too short", { kraPin: "P05123456X" }, "kraPin", ORGANISATION_MESSAGES.kraPin],
    ["a KRA PIN with a letter among the digits", { kraPin: "P0512345O7X" }, "kraPin", ORGANISATION_MESSAGES.kraPin],
    ["a KRA PIN of digits only", { kraPin: "051234567123" }, "kraPin", ORGANISATION_MESSAGES.kraPin],
    ["an unknown county", { county: "Atlantis" }, "county", ORGANISATION_MESSAGES.county],
    ["an unknown industry", { industry: "mining" }, "industry", ORGANISATION_MESSAGES.industry],
    ["a made-up time zone", { timeZone: "Africa/Wakanda" }, "timeZone", ORGANISATION_MESSAGES.timeZone],
    ["no time zone", { timeZone: "" }, "timeZone", ORGANISATION_MESSAGES.timeZone],
    ["no name", { name: "   " }, "name", ORGANISATION_MESSAGES.nameRequired],
    ["a name too long", { name: "N".repeat(121) }, "name", ORGANISATION_MESSAGES.nameMax],
    ["a postal address too long", { postalAddress: "P.O. Box ".padEnd(161, "1") }, "postalAddress", ORGANISATION_MESSAGES.postalAddressMax],
  ])("refuses %s at its field and changes nothing", async (_, bad, field, message) => {
    const owner = await createVerifiedUser({ businessName: "Kaunti ya Nakuru" });
    const cookie = await signedInCookie(owner.email, owner.password);
    const refused = await saveDetails(cookie, { ...GOOD, ...bad });
    expect(refused.status).toBe(400);
    expect(refused.data.result.error).toEqual({ [field]: [message] });
    expect(await organisationRow(owner.organization.id)).toMatchObject({ name: "Kaunti ya Nakuru", kra_pin: null, county: null });
    expect((await activity(owner.organization.id)).filter((a) => a.startsWith("settings:"))).toEqual([]);
  });

  it("lets an admin change the details, and refuses agents and viewers the page and the post (403, nothing changed)", async () => {
    const owner = await createVerifiedUser({ businessName: "Kaunti ya Kisumu" });
    const admin = await member({ organizationId: owner.organization.id }, "admin");
    expect((await saveDetails(admin.cookie, { ...GOOD, name: "County Government of Kisumu" })).location).toBe("/settings/organisation");
    expect((await organisationRow(owner.organization.id))?.name).toBe("County Government of Kisumu");

    for (const role of ["agent", "viewer"] as const) {
      const { cookie } = await member({ organizationId: owner.organization.id }, role);
      const refused = await saveDetails(cookie, { ...GOOD, name: "Hijacked", kraPin: "A123456789Z" });
      expect(refused.status, role).toBe(403);
      expect(refused.data.toast.message).toBe(ORGANISATION_REFUSALS.forbidden);
      // The shell's middleware refuses the page before any loader runs; the loader refuses it too.
      const shell = await run(
        (args) => signedInPages(args, async () => new Response("the page")),
        getRequest("/settings/organisation", { cookie }),
      );
      expect(shell.location, role).toBe("/unauthorized");
      expect((await run(organisationPage.loader, getRequest("/settings/organisation", { cookie }))).location).toBe("/unauthorized");
      // Account Settings opens at the team for them, and the Account section is not theirs either.
      expect((await run(settingsIndex.loader, getRequest("/settings", { cookie }))).location).toBe("/settings/team");
      expect((await closeRequest(cookie, { password: "Member#Pass2026", confirmName: "County Government of Kisumu" })).status).toBe(403);
    }
    expect(await organisationRow(owner.organization.id)).toMatchObject({
      name: "County Government of Kisumu",
      kra_pin: "P051874263K",
      closure_requested_at: null,
    });
    // An admin may not close it: only the owner.
    const refused = await closeRequest(admin.cookie, { password: admin.password, confirmName: "County Government of Kisumu" });
    expect(refused.status).toBe(403);
    expect(refused.data.toast.message).toBe(ORGANISATION_REFUSALS.ownerOnly);
    expect((await run(accountPage.loader, getRequest("/settings/account", { cookie: admin.cookie }))).location).toBe("/unauthorized");
    expect((await organisationRow(owner.organization.id))?.closure_requested_at).toBeNull();
  });
});

describe("closing the organisation", () => {
  const template = (t: Tenant) => approvedBodyTemplate(meta.graph, t, "loan_reminder", "UTILITY", "Habari {{1}}, your loan is due.");
  const campaignInput = (name: string, scheduledFor?: Date): CampaignInput => ({
    name,
    template: { name: "loan_reminder" },
    parameters: { body: [{ field: "first_name", fallback: "member" }] },
    audience: { phones: [recipient(1), recipient(2), recipient(3)] },
    scheduledFor,
  });
  const textMessage = (to: string) => ({
    to,
    content: { kind: "template" as const, template: { name: "loan_reminder", language: "en", parameters: ["Amina"] } },
    source: "api" as const,
  });

  it("refuses a wrong password or name and changes nothing", async () => {
    const t = await tenant("Maziwa Dairy Cooperative");
    const wrongPassword = await closeRequest(t.cookie, { password: "Not#MyPassword1", confirmName: "Maziwa Dairy Cooperative" });
    expect(wrongPassword.status).toBe(400);
    expect(wrongPassword.data.result.error).toEqual({ password: [ORGANISATION_REFUSALS.wrongPassword] });
    const wrongName = await closeRequest(t.cookie, { password: t.password, confirmName: "Maziwa" });
    expect(wrongName.status).toBe(400);
    expect(wrongName.data.result.error).toEqual({ confirmName: [ORGANISATION_MESSAGES.confirmNameMismatch] });
    const empty = await closeRequest(t.cookie, { password: "", confirmName: "" });
    expect(empty.data.result.error).toEqual({
      password: [ORGANISATION_MESSAGES.passwordRequired],
      confirmName: [ORGANISATION_MESSAGES.confirmNameRequired],
    });
    expect(await organisationRow(t.organizationId)).toMatchObject({ closure_requested_at: null, erase_after: null });
    expect((await run(layout.loader, getRequest("/dashboard", { cookie: t.cookie }))).data.eraseAfter).toBeNull();
  });

  it("closes for 30 days: campaigns pause with the reason, nothing is sent however asked, every page says when; reopening lifts it", async () => {
    const t = await tenant("Maziwa Dairy Cooperative");
    await template(t);
    for (const i of [1, 2, 3]) await saveContact(t, { name: `Mwanachama ${i}`, phone: recipient(i) });
    const running = await createCampaign(t, campaignInput("December reminder"));
    const later = await createCampaign(t, campaignInput("January reminder", new Date(Date.now() + 7 * DAY)));
    // A message queued just before the closing, not yet sent.
    const queuedBefore = await queueMessage(t.organizationId, textMessage(recipient(9)));
    const agent = await member(t, "agent");

    const before = Date.now();
    const closed = await closeRequest(t.cookie, { password: t.password, confirmName: "  maziwa dairy  cooperative " });
    expect(closed.location).toBe("/settings/account");
    const row = (await organisationRow(t.organizationId))!;
    expect(row.closure_requested_by).toBe(t.userId);
    const eraseAfter = new Date(row.erase_after!).getTime();
    expect(eraseAfter - new Date(row.closure_requested_at!).getTime()).toBe(GRACE_DAYS * DAY);
    expect(eraseAfter).toBeGreaterThanOrEqual(before + GRACE_DAYS * DAY);

    // Both campaigns pause, saying why; the log says what happened.
    const campaigns = await rawQuery<{ id: string; status: string; paused_reason: string }>(
      `select id, status, paused_reason from campaigns where organization_id = $1 order by name`,
      [t.organizationId],
    );
    expect(campaigns.map((c) => [c.id, c.status])).toEqual([
      [running, "paused"],
      [later, "paused"],
    ]);
    for (const c of campaigns)
      expect(c.paused_reason).toMatch(/^The organisation is closing: its data will be erased on .+ unless its owner reopens it\./);
    expect(await activity(t.organizationId)).toEqual(
      expect.arrayContaining(["settings: Organisation closing", "message: Campaign paused", "message: Campaign paused"]),
    );
    const [closing] = await rawQuery<{ details: string }>(
      `select details from activity_logs where organization_id = $1 and action = 'Organisation closing'`,
      [t.organizationId],
    );
    // The day written out in English when stored, and in each reader's words when shown.
    expect(closing!.details).toMatch(
      /^Its data will be erased on \d{1,2} [A-Z][a-z]+ \d{4} unless it is reopened\. Nothing is sent meanwhile; 2 campaigns paused\.$/,
    );
    expect(inLocale("sw", () => detailsInWords(closing!.details))).toMatch(
      /^Data yake itafutwa tarehe \d{1,2} [A-Z][a-z]+ \d{4} lisipofunguliwa upya\. Hakuna kinachotumwa kwa sasa; kampeni 2 zimesitishwa\.$/,
    );

    // Every member's pages carry the date; the owner's Account page offers the reopening.
    for (const cookie of [t.cookie, agent.cookie])
      expect((await run(layout.loader, getRequest("/messaging", { cookie }))).data.eraseAfter).toBe(new Date(eraseAfter).toISOString());
    expect((await run(accountPage.loader, getRequest("/settings/account", { cookie: t.cookie }))).data.closing).toMatchObject({
      eraseAfter: new Date(eraseAfter).toISOString(),
    });
    expect((await closeRequest(t.cookie, { password: t.password, confirmName: "Maziwa Dairy Cooperative" })).data.result.error).toEqual({
      "": [ORGANISATION_REFUSALS.alreadyClosing],
    });

    // Nothing goes out: the API, a new campaign, a resumed one, the feeder, the dispatcher.
    expect(await refusalOf(t.organizationId, textMessage(recipient(4)))).toEqual({
      status: 409,
      code: "organization_closing",
      message: closingSendsNothing(),
    });
    const api = await fetch(`${apiServer.base}/api/v1/messages`, {
      method: "POST",
      headers: { Authorization: `Bearer ${t.key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ to: recipient(5), template: "loan_reminder", parameters: ["Baraka"] }),
    });
    expect(api.status).toBe(409);
    expect(await api.json()).toMatchObject({ code: "organization_closing", message: closingSendsNothing() });
    expect(await campaignRefusal(createCampaign(t, campaignInput("Sneaky broadcast")))).toEqual({
      status: 409,
      code: "organization_closing",
      field: undefined,
      message: closingSendsNothing(),
    });
    expect(await campaignRefusal(resumeCampaign(t, running))).toMatchObject({ status: 409, code: "organization_closing" });
    // A campaign that slipped through (started as the closing committed) is paused by the feeder, saying why.
    await rawQuery(`update campaigns set status = 'sending', paused_reason = null where id = $1`, [running]);
    await rawQuery(`update messages set next_attempt_at = now() where campaign_id = $1`, [running]);
    await feedCampaigns();
    expect((await rawQuery(`select status, paused_reason from campaigns where id = $1`, [running]))[0]).toEqual({
      status: "paused",
      paused_reason: closingSendsNothing(),
    });
    await drainDispatcher();
    expect(await metaReceived(meta.graph, t.phoneNumberId)).toEqual([]);
    expect((await rawQuery(`select status, error_title from messages where id = $1`, [queuedBefore.id]))[0]).toEqual({
      status: "failed",
      error_title: "organization_closing",
    });
    expect(
      (await rawQuery<{ n: number }>(`select count(*)::int as n from campaigns where organization_id = $1`, [t.organizationId]))[0]!.n,
    ).toBe(2);

    // Reopening: the password again (a wrong one changes nothing), then sending works again.
    const wrong = await reopenRequest(t.cookie, "Not#MyPassword1");
    expect(wrong.status).toBe(400);
    expect(wrong.data.result.error).toEqual({ password: [ORGANISATION_REFUSALS.wrongPassword] });
    expect((await organisationRow(t.organizationId))?.erase_after).not.toBeNull();
    expect((await reopenRequest(t.cookie, t.password)).location).toBe("/settings/account");
    expect(await organisationRow(t.organizationId)).toMatchObject({
      closure_requested_at: null,
      closure_requested_by: null,
      erase_after: null,
    });
    expect((await run(layout.loader, getRequest("/messaging", { cookie: agent.cookie }))).data.eraseAfter).toBeNull();
    expect(await activity(t.organizationId)).toContain("settings: Organisation reopened");
    // The campaigns stay paused until someone resumes them.
    expect((await rawQuery(`select status from campaigns where id = $1`, [later]))[0]).toEqual({ status: "paused" });
    const sent = await queueMessage(t.organizationId, textMessage(recipient(6)));
    await vi.waitFor(
      async () => {
        await drainDispatcher();
        expect((await rawQuery(`select accepted_at is not null as accepted from messages where id = $1`, [sent.id]))[0]).toEqual({
          accepted: true,
        });
      },
      { timeout: 30_000, interval: 20 },
    );
    await resumeCampaign(t, later);
    expect((await rawQuery(`select status from campaigns where id = $1`, [later]))[0]).toEqual({ status: "scheduled" });
    expect((await reopenRequest(t.cookie, t.password)).data.result.error).toEqual({ "": [ORGANISATION_REFUSALS.notClosing] });
  });
});

describe("erasing a closed organisation", () => {
  /** Every table with an organization_id column, and how many of its rows are the organisation's. */
  async function tenantRows(organizationId: string) {
    const tables = await rawQuery<{ table_name: string }>(
      `select c.table_name from information_schema.columns c join information_schema.tables t
         on t.table_schema = c.table_schema and t.table_name = c.table_name
       where c.table_schema = 'public' and c.column_name = 'organization_id' and t.table_type = 'BASE TABLE'
       order by c.table_name`,
    );
    const counts: Record<string, number> = {};
    for (const { table_name } of tables)
      counts[table_name] = (
        await rawQuery<{ n: number }>(`select count(*)::int as n from "${table_name}" where organization_id = $1`, [organizationId])
      )[0]!.n;
    return counts;
  }
  const nonEmpty = (counts: Record<string, number>) => Object.keys(counts).filter((table) => counts[table]! > 0);

  it("erases it after the grace period and not before, every tenant row and stored file, once across instances; another tenant keeps all", async () => {
    const t = await tenant("Jua Kali Traders");
    const other = await tenant("Kaunti ya Nakuru");
    await approvedBodyTemplate(meta.graph, t, "loan_reminder", "UTILITY", "Habari {{1}}, your loan is due.");
    for (const i of [1, 2])
      await saveContact(t, { name: `Mteja ${i}`, phone: recipient(i) }, { consent: { status: "opted_in", source: "manual" } });
    await saveContact(other, { name: "Mkaazi", phone: recipient(7) });
    const campaign = await createCampaign(t, {
      name: "Soko reminder",
      template: { name: "loan_reminder" },
      parameters: { body: [{ field: "first_name", fallback: "rafiki" }] },
      audience: { phones: [recipient(1), recipient(2)] },
    });
    await feedCampaigns();
    const photo = Buffer.concat([Buffer.from("ffd8ffe000104a46494600010100000100010000", "hex"), Buffer.alloc(2000, 7)]);
    const media = await storeUploadedMedia(t.organizationId, {
      declaredType: "image/jpeg",
      fileName: "duka.jpg",
      chunks: (async function* () {
        yield photo;
      })(),
    });
    const imported = await fileStorage().write([Buffer.from("name,phone\nAmina,+254712000118\n")], {
      maxBytes: 1000,
      organisationId: t.organizationId,
    });
    await rawQuery(
      `insert into contact_imports (organization_id, created_by, file_name, storage_key, size, columns) values ($1, $2, 'wateja.csv', $3, $4, '["name","phone"]')`,
      [t.organizationId, t.userId, imported.key, imported.size],
    );
    const [mediaRow] = await rawQuery<{ storage_key: string }>(`select storage_key from media_files where id = $1`, [media.id]);
    await inviteMember(
      {
        user: { id: t.userId, email: t.email, firstName: "Test", lastName: "User" },
        organization: { id: t.organizationId, name: "Jua Kali Traders" },
        role: "owner",
      },
      { email: uniqueEmail("invitee"), role: "viewer" },
      META,
    );
    await member(t, "agent");
    const before = await tenantRows(t.organizationId);
    // The test means something: the tenant has rows all over the database.
    expect(nonEmpty(before)).toEqual(
      expect.arrayContaining([
        "activity_logs",
        "campaign_recipients",
        "campaigns",
        "contact_imports",
        "contacts",
        "invitations",
        "media_files",
        "messages",
        "users",
        "whatsapp_accounts",
        "whatsapp_phone_numbers",
      ]),
    );
    expect(campaign).toBeTruthy();
    const otherBefore = await tenantRows(other.organizationId);

    // A third tenant closes and reopens: it is never erased.
    const reopened = await tenant("Mama Mboga Stores");
    expect((await closeRequest(reopened.cookie, { password: reopened.password, confirmName: "Mama Mboga Stores" })).location).toBe(
      "/settings/account",
    );
    expect((await reopenRequest(reopened.cookie, reopened.password)).location).toBe("/settings/account");

    const closedAt = Date.now();
    expect((await closeRequest(t.cookie, { password: t.password, confirmName: "Jua Kali Traders" })).location).toBe("/settings/account");

    // Within the grace period: nothing is erased (and the sessions still work).
    vi.useFakeTimers({ toFake: ["Date"], now: closedAt + (GRACE_DAYS - 1) * DAY });
    expect(await eraseDueOrganisations()).toEqual([]);
    expect(await organisationRow(t.organizationId)).toBeDefined();
    // Past it, the owner can no longer reopen it (every session has expired by then: the domain function is asked).
    vi.setSystemTime(closedAt + GRACE_DAYS * DAY + 60_000);
    const ownerActor = { user: { id: t.userId }, organization: t.organization, role: "owner" as const };
    await expect(reopenOrganisation(ownerActor, { password: t.password })).rejects.toMatchObject({
      status: 409,
      code: "grace_over",
      message: ORGANISATION_REFUSALS.graceOver,
    });

    // Two instances' housekeeping at once: one erases it, the other finds nothing to do.
    const runs = await Promise.all([eraseDueOrganisations(), eraseDueOrganisations()]);
    expect(runs.flat()).toEqual([t.organizationId]);
    expect(await organisationRow(t.organizationId)).toBeUndefined();
    const after = await tenantRows(t.organizationId);
    expect(nonEmpty(after)).toEqual([]);
    await expect(fileStorage().read(mediaRow!.storage_key)).rejects.toBeInstanceOf(StorageNotFoundError);
    await expect(fileStorage().read(imported.key)).rejects.toBeInstanceOf(StorageNotFoundError);
    // The accounts went, and their sessions with them.
    expect(await rawQuery(`select id from users where id = $1`, [t.userId])).toEqual([]);
    expect(await rawQuery(`select id from sessions where user_id = $1`, [t.userId])).toEqual([]);

    // The others keep everything.
    expect(await tenantRows(other.organizationId)).toEqual(otherBefore);
    expect(await organisationRow(reopened.organizationId)).toMatchObject({ erase_after: null });
    vi.setSystemTime(closedAt + 365 * DAY);
    expect(await eraseDueOrganisations()).toEqual([]);
    expect(await organisationRow(reopened.organizationId)).toBeDefined();
  });
});
