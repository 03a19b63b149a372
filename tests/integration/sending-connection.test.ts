import { describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { messageTemplates, whatsappAccounts } from "~/.server/infrastructure/db/schema";
import { env } from "~/.server/infrastructure/config/env";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { currentUser } from "~/.server/domains/auth/guards";
import { embeddedSignupState } from "~/.server/domains/whatsapp/signup-state";
import { encryptSecret } from "~/.server/infrastructure/security/crypto";
import { queueMessage, type SendRequest } from "~/.server/domains/messaging/queue";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { recipientsPerDay } from "~/.server/domains/messaging/messaging-limit";
import * as callbackPage from "~/routes/app/embedded-callback";
import * as whatsappPage from "~/routes/app/whatsapp";
import { createVerifiedUser, latestMailTo, signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";
import { refusalOf, metaSandboxForFile } from "../support/meta-harness";

// Two rules of the sending engine that are about the connection rather than one message: Meta
// refusing the account's token (error 190), and the portfolio's messaging limit.

const meta = metaSandboxForFile();

/** What Meta accepted so far. */
async function acceptedAtMeta() {
  return meta.sandbox.messages();
}

/** Embedded Signup as a browser completes it: the callback page with Meta's code for the business. */
async function embeddedSignup(cookie: string, business: { businessId: string; wabaId: string; phoneNumberId: string }) {
  const current = (await currentUser({ request: getRequest("/", { cookie }), context: undefined }))!;
  const code = meta.sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] });
  const query = new URLSearchParams({
    code,
    shared_waba_id: business.wabaId,
    phone_number_id: business.phoneNumberId,
    state: embeddedSignupState(current),
  });
  const first = await run(callbackPage.loader, getRequest(`/embedded-callback?${query}`, { cookie }));
  expect(first.location).toBe(`/embedded-callback?outcome=connected&waba=${business.wabaId}`);
}

describe("Meta refusing the account's token (190)", () => {
  it("holds the number's messages, marks the account, tells the tenant, and sends once the account is connected again", async () => {
    const owner = await createVerifiedUser({ businessName: "Pwani Fish Traders" });
    const cookie = await signedInCookie(owner.email, owner.password);
    const business = meta.sandbox.createTestBusiness({
      businessName: "Pwani Fish Traders",
      verifiedName: "Pwani Fish",
      displayPhoneNumber: "+254 741 200 300",
    });
    await embeddedSignup(cookie, business);
    const organizationId = owner.organization.id;
    const customers = ["+254722410001", "+254722410002"];
    for (const customer of customers) await meta.customerWrites(business.phoneNumberId, customer);

    // The tenant's token stops working at Meta (revoked, or the admin's password changed).
    await db()
      .update(whatsappAccounts)
      .set({ accessTokenEncrypted: encryptSecret("EAArevokedtoken") })
      .where(eq(whatsappAccounts.organizationId, organizationId));
    const queued = [];
    for (const to of customers)
      queued.push(await queueMessage(organizationId, { to, content: { kind: "text", text: "Samaki wako tayari." }, source: "api" }));
    await drainDispatcher();

    // Held, not failed: queued, untried, with the reason on the message.
    const held = await rawQuery<{ status: string; attempts: number; error_title: string; error_code: number | null; waits: boolean }>(
      `select status, attempts, error_title, error_code, next_attempt_at > now() + interval '1 minute' as waits from messages
       where id = any($1::uuid[])`,
      [queued.map((q) => q.id)],
    );
    expect(held).toEqual(
      customers.map(() => ({ status: "queued", attempts: 0, error_title: "whatsapp_reconnect_needed", error_code: null, waits: true })),
    );
    expect(await acceptedAtMeta()).toEqual([]);
    const [account] = await db().select().from(whatsappAccounts).where(eq(whatsappAccounts.organizationId, organizationId));
    expect(account!.tokenRefusedAt).toBeInstanceOf(Date);
    expect(account!.tokenRefusal).toMatch(/Invalid OAuth access token/);

    // Told: the activity log, the owner's e-mail, and the WhatsApp page.
    const activity = await rawQuery<{ action: string; status: string }>(
      `select action, status from activity_logs where organization_id = $1 and action = 'WhatsApp connection needs reconnecting'`,
      [organizationId],
    );
    expect(activity).toEqual([{ action: "WhatsApp connection needs reconnecting", status: "error" }]);
    await drainJobs();
    const mail = await latestMailTo(owner.email);
    expect(mail?.subject).toBe("Reconnect your WhatsApp account to keep sending");
    expect(mail?.textBody).toContain(`${env().APP_URL}/whatsapp`);
    const page = await run(whatsappPage.loader, getRequest("/whatsapp", { cookie }));
    const data = page.data as { connections: { needsReconnection: { reason: string } | null }[] };
    expect(data.connections[0]!.needsReconnection?.reason).toMatch(/Invalid OAuth access token/);

    // New messages are refused plainly until then, and a second refusal tells nobody twice.
    expect(await refusalOf(organizationId, { to: customers[0]!, content: { kind: "text", text: "Tena" }, source: "api" })).toMatchObject({
      status: 409,
      code: "whatsapp_reconnect_needed",
    });
    await rawQuery(`update messages set next_attempt_at = now() where id = any($1::uuid[])`, [queued.map((q) => q.id)]);
    await drainDispatcher();
    expect(await acceptedAtMeta()).toEqual([]);
    expect(
      await rawQuery(`select 1 from activity_logs where organization_id = $1 and action = 'WhatsApp connection needs reconnecting'`, [
        organizationId,
      ]),
    ).toHaveLength(1);

    // Embedded Signup again: a new token, the mark cleared, the waiting messages sent at once.
    await embeddedSignup(cookie, business);
    const [again] = await db().select().from(whatsappAccounts).where(eq(whatsappAccounts.organizationId, organizationId));
    expect(again!.tokenRefusedAt).toBeNull();
    await drainDispatcher();
    const sent = await rawQuery<{ accepted: boolean; error_title: string | null }>(
      `select accepted_at is not null as accepted, error_title from messages where id = any($1::uuid[])`,
      [queued.map((q) => q.id)],
    );
    expect(sent).toEqual(customers.map(() => ({ accepted: true, error_title: null })));
    expect(await acceptedAtMeta()).toHaveLength(2);
    const after = await run(whatsappPage.loader, getRequest("/whatsapp", { cookie }));
    expect((after.data as typeof data).connections[0]!.needsReconnection).toBeNull();
  });
});

describe("the messaging limit", () => {
  it("reads Meta's tier names", () => {
    expect(["TIER_250", "TIER_2K", "TIER_10K", "TIER_100K", "TIER_UNLIMITED", null, "weird"].map(recipientsPerDay)).toEqual([
      250,
      2000,
      10_000,
      100_000,
      null,
      null,
      null,
    ]);
  });

  it("holds templates to new people beyond the portfolio's limit in 24 hours, and sends them once it allows", async () => {
    const user = await createVerifiedUser({ businessName: "Mlima Tea Growers" });
    const t = await meta.graph.connect(user.organization.id, "Mlima Tea Growers");
    const organizationId = user.organization.id;
    await db().execute(sql`update whatsapp_phone_numbers set messaging_limit = 'TIER_250' where phone_number_id = ${t.phoneNumberId}`);
    meta.sandbox.createTemplateAtMeta(t.wabaId, {
      name: "harvest_notice",
      language: "en",
      category: "UTILITY",
      components: [{ type: "BODY", text: "Habari {{1}}, your tea collection is on {{2}}.", example: { body_text: [["Mzee", "Friday"]] } }],
    });
    await db()
      .insert(messageTemplates)
      .values({
        organizationId,
        wabaId: t.wabaId,
        name: "harvest_notice",
        language: "en",
        category: "UTILITY",
        status: "approved",
        components: [{ type: "BODY", text: "Habari {{1}}, your tea collection is on {{2}}." }],
      });
    // 248 people reached in the last 24 hours (the oldest 23 hours ago), one of them the first below.
    const [account] = await db().select().from(whatsappAccounts).where(eq(whatsappAccounts.id, t.account.id));
    const portfolio = account!.businessId ?? account!.wabaId;
    await db().execute(sql`
      insert into messaging_limit_recipients (portfolio_id, recipient, reached_at)
      select ${portfolio}, '+2547100' || lpad(n::text, 5, '0'), now() - make_interval(hours => 23) + make_interval(secs => n)
      from generate_series(1, 248) as n`);
    // A customer who wrote today: a template inside the window does not count.
    await meta.customerWrites(t.phoneNumberId, "+254733900001");

    const template = (to: string): SendRequest => ({
      to,
      content: { kind: "template", template: { name: "harvest_notice", parameters: ["Mzee", "Friday"] } },
      source: "api",
    });
    const reachedBefore = "+254710000001";
    const newPeople = ["+254733000101", "+254733000102", "+254733000103", "+254733000104"];
    const ids: Record<string, string> = {};
    for (const to of [reachedBefore, "+254733900001", ...newPeople]) ids[to] = (await queueMessage(organizationId, template(to))).id;
    await drainDispatcher();

    const state = async () =>
      Object.fromEntries(
        (
          await rawQuery<{ recipient_phone: string; accepted: boolean; error_title: string | null }>(
            `select recipient_phone, accepted_at is not null as accepted, error_title from messages
             where id = any($1::uuid[])`,
            [Object.values(ids)],
          )
        ).map((r) => [r.recipient_phone, r.accepted ? "sent" : r.error_title]),
      );
    // Two places were left: the first two new people go; the person reached before and the one in
    // the window cost nothing; the last two wait.
    expect(await state()).toEqual({
      [reachedBefore]: "sent",
      "+254733900001": "sent",
      [newPeople[0]!]: "sent",
      [newPeople[1]!]: "sent",
      [newPeople[2]!]: "messaging_limit_reached",
      [newPeople[3]!]: "messaging_limit_reached",
    });
    const counted = await rawQuery<{ n: number }>(
      `select count(*)::int as n from messaging_limit_recipients where portfolio_id = $1 and reached_at > now() - interval '24 hours'`,
      [portfolio],
    );
    expect(counted[0]!.n).toBe(250);
    // They wait until the oldest person drops out of the 24 hours (about an hour from now).
    const [wait] = await rawQuery<{ minutes: number }>(
      `select round(extract(epoch from next_attempt_at - now()) / 60)::int as minutes from messages where id = $1`,
      [ids[newPeople[2]!]],
    );
    expect(wait!.minutes).toBeGreaterThanOrEqual(59);
    expect(wait!.minutes).toBeLessThanOrEqual(61);

    // The clock moves on (standing in: the oldest two people were reached 25 hours ago) and they go.
    await db().execute(sql`
      update messaging_limit_recipients set reached_at = now() - interval '25 hours'
      where portfolio_id = ${portfolio} and recipient in ('+254710000002', '+254710000003')`);
    await db().execute(sql`update messages set next_attempt_at = now() where id = any(${sql.param(Object.values(ids))}::uuid[])`);
    await drainDispatcher();
    expect(Object.values(await state())).toEqual(Object.values(ids).map(() => "sent"));
    expect((await acceptedAtMeta()).length).toBe(6);
  });
});
