import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { saveContact } from "~/.server/domains/contacts/manage";
import { saveSegment } from "~/.server/domains/contacts/segments";
import { feedCampaigns } from "~/.server/domains/campaigns/feeder";
import { approveCampaign, type Approver } from "~/.server/domains/campaigns/approval";
import { COUNTS_MAX_AGE_MS } from "~/.server/domains/campaigns/progress";
import * as keyApi from "~/routes/api/developer.api-key";
import * as regenerateApi from "~/routes/api/developer.api-key.regenerate";
import { action as campaignAction, loader as campaignLoader } from "~/routes/app/messaging/campaigns/campaign";
import { loader as developersLoader } from "~/routes/app/developers";
import { openApiDocument } from "~/.server/adapters/api-v1/openapi";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { formRequest, getRequest, routeArgs, run } from "../support/http";
import { startApiV1Server } from "../support/api-v1-server";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedBodyTemplate, approvedMediaTemplate, metaReceived, recipient, setBucketRate } from "../support/sending-kit";
import { isRefusal } from "~/.server/infrastructure/refusal";

// The campaign endpoints of the public API (issue 14) on a real socket, against the Meta sandbox:
// creating one now, scheduled or as a draft with its estimate, every bad field answered 4xx with
// nothing stored, Idempotency-Key, the list's search, filter and cursor, the figures after sending,
// pause, resume and cancel in right and wrong states, and one tenant never reaching another's.

let apiServer: Awaited<ReturnType<typeof startApiV1Server>>;
beforeAll(async () => {
  apiServer = await startApiV1Server();
});
afterAll(async () => {
  await apiServer.close();
});
const meta = metaSandboxForFile({ appUrl: () => apiServer.base });

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  const read = await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }));
  const connection = await meta.graph.connect(account.organization.id, name);
  return { organizationId: account.organization.id, userId: account.user.id, cookie, key: read.data.key as string, ...connection };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** An approved template at Meta (the sandbox) and in Jumbe, with `{{1}}`… in its body; answers Meta's id. */
const template = (t: Tenant, name: string, category: "UTILITY" | "MARKETING", text: string) =>
  approvedBodyTemplate(meta.graph, t, name, category, text);

async function call(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${apiServer.base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString().replace("Z", "+00:00");
const campaignCount = async (organizationId: string) =>
  (await rawQuery<{ n: number }>(`select count(*)::int as n from campaigns where organization_id = $1`, [organizationId]))[0]!.n;

/** Feeds and dispatches until the campaign has ended, then until Meta's statuses have all come back. */
async function runToTheEnd(t: Tenant, id: string, expected: { sent: number; read: number }) {
  await setBucketRate(t.phoneNumberId, 1000);
  await vi.waitFor(
    async () => {
      await feedCampaigns();
      await drainDispatcher();
      await drainJobs();
      const [row] = await rawQuery<{ status: string }>(`select status from campaigns where id = $1`, [id]);
      expect(row!.status).toBe("completed");
    },
    { timeout: 30_000, interval: 20 },
  );
  await vi.waitFor(
    async () => {
      await drainJobs();
      const [row] = await rawQuery<{ read: number }>(
        `select count(*)::int as read from messages where campaign_id = $1 and read_at is not null`,
        [id],
      );
      expect(row!.read).toBe(expected.read);
    },
    { timeout: 30_000, interval: 50 },
  );
  // The figures a campaign shows are at most a second old.
  await aSecondLater(id);
}

/**
 * What a reader finds a second later, without waiting for it: the campaign's stored figures are
 * dated back past their second of freshness (COUNTS_MAX_AGE_MS), so the next read counts them again
 * exactly as it would after a real second.
 */
async function aSecondLater(id: string) {
  await rawQuery(`update campaigns set counted_at = counted_at - make_interval(secs => $2::float8 / 1000) where id = $1`, [
    id,
    COUNTS_MAX_AGE_MS + 100,
  ]);
}

const STATEMENTS = "Dear {{1}}, your statement for {{2}} is ready.";

describe("creating a campaign", () => {
  it("starts one now with its estimate, sends it through the sandbox, and answers its figures", async () => {
    const t = await tenant("Nyota Savings Sacco");
    await template(t, "statement_ready", "UTILITY", STATEMENTS);
    await saveContact(t, { name: "Amina Wekesa", phone: recipient(1), tags: ["members"] });
    await saveContact(t, { name: "Baraka Otieno", phone: recipient(2), tags: ["members"] });
    await saveContact(t, { name: "Chebet Kiprop", phone: recipient(3), tags: ["staff"] });
    const created = await call(t.key, "POST", "/api/v1/campaigns", {
      name: "November statements",
      template: "statement_ready",
      language: "en",
      audience: { tags: ["members"], phones: [recipient(4), "12", recipient(1)] },
      parameters: [{ field: "first_name", fallback: "member" }, { value: "November" }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: "campaign",
      name: "November statements",
      status: "sending",
      from: `+${t.phone.phoneDigits}`,
      phoneNumberId: t.phoneNumberId,
      template: { name: "statement_ready", language: "en", category: "UTILITY" },
      parameters: { body: [{ field: "first_name", fallback: "member" }, { value: "November" }] },
      audienceLabel: "Tag members + 3 numbers",
      audienceSize: 5,
      leftOut: { invalid_number: 1, duplicate: 1 },
      scheduledFor: null,
      startedAt: expect.any(String),
      estimate: {
        recipients: 3,
        leftOut: { invalid_number: 1, duplicate: 1 },
        // Within the plan's included messages (postpaid Starter: 1,000 a month).
        estimatedCostKes: 0,
      },
    });
    expect(created.body.estimatedCostKes).toBe(created.body.estimate.estimatedCostKes);
    const id = created.body.id as string;

    await runToTheEnd(t, id, { sent: 3, read: 3 });
    const atMeta = await metaReceived(meta.graph, t.phoneNumberId);
    expect(atMeta.map((m) => m.to).sort()).toEqual([recipient(1), recipient(2), recipient(4)].sort());
    const bodies = atMeta.map(
      (m) => (m.body as { template: { components: { parameters: { text: string }[] }[] } }).template.components[0]!,
    );
    expect(bodies.map((c) => c.parameters.map((p) => p.text)).sort()).toEqual([
      ["Amina", "November"],
      ["Baraka", "November"],
      ["member", "November"],
    ]);

    // A person writes back: replied counts on the next read of the figures.
    await meta.customerWrites(t.phoneNumberId, recipient(2).slice(1), { text: "Asante!" });
    await aSecondLater(id);
    const got = await call(t.key, "GET", `/api/v1/campaigns/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id,
      status: "completed",
      finishedAt: expect.any(String),
      counts: { queued: 0, sent: 3, delivered: 3, read: 3, replied: 1, failed: 0 },
    });
    expect(got.body.estimate).toBeUndefined();
  });

  it("schedules one and saves a draft, each with its estimate and nothing sent", async () => {
    const t = await tenant("Kaunti ya Nakuru");
    await template(t, "mega_sale", "MARKETING", "Habari {{1}}! Mega sale this weekend.");
    const yes = { consent: { status: "opted_in" as const, source: "manual" as const } };
    await saveContact(t, { name: "Amina Wekesa", phone: recipient(1), tags: ["nakuru"] }, yes);
    await saveContact(t, { name: "Baraka Otieno", phone: recipient(2), tags: ["nakuru"] });
    const at = inAnHour();
    const scheduled = await call(t.key, "POST", "/api/v1/campaigns", {
      name: "Weekend sale",
      template: "mega_sale",
      audience: { tags: ["nakuru"] },
      parameters: [{ field: "name" }],
      scheduledFor: at,
    });
    expect(scheduled.status).toBe(201);
    expect(scheduled.body).toMatchObject({
      status: "scheduled",
      scheduledFor: new Date(at).toISOString(),
      audienceSize: null,
      startedAt: null,
      counts: { queued: 0, sent: 0, delivered: 0, read: 0, replied: 0, failed: 0 },
      estimate: { recipients: 1, leftOut: { not_opted_in: 1 }, estimatedCostKes: 0 },
    });
    // Nairobi's offset is read as such.
    const nairobi = await call(t.key, "POST", "/api/v1/campaigns", {
      name: "Weekend sale, Nairobi time",
      template: "mega_sale",
      audience: { tags: ["nakuru"] },
      parameters: [{ field: "name" }],
      scheduledFor: "2099-01-01T09:00:00+03:00",
    });
    expect(nairobi).toMatchObject({ status: 422, body: { code: "invalid_schedule" } });
    const tomorrowNairobi = new Date(Date.now() + 86_400_000 + 3 * 3_600_000).toISOString().slice(0, 10);
    const local = await call(t.key, "POST", "/api/v1/campaigns", {
      name: "Weekend sale, Nairobi time",
      template: "mega_sale",
      audience: { tags: ["nakuru"] },
      parameters: [{ field: "name" }],
      scheduledFor: `${tomorrowNairobi}T23:30:00+03:00`,
    });
    expect(local.body.scheduledFor).toBe(`${tomorrowNairobi}T20:30:00.000Z`);

    // A draft may name nobody who can receive it yet.
    const draft = await call(t.key, "POST", "/api/v1/campaigns", {
      name: "Idea for December",
      template: "mega_sale",
      audience: { phones: ["12"] },
      parameters: [{ value: "everyone" }],
      draft: true,
    });
    expect(draft).toMatchObject({
      status: 201,
      body: { status: "draft", estimate: { recipients: 0, leftOut: { invalid_number: 1 }, estimatedCostKes: 0 } },
    });
    await feedCampaigns();
    await drainDispatcher();
    expect(await metaReceived(meta.graph, t.phoneNumberId)).toEqual([]);
    expect(await campaignCount(t.organizationId)).toBe(3);
  });

  it("answers each bad field with a clear 4xx and stores nothing", async () => {
    const t = await tenant("Eldoret Seeds");
    await template(t, "statement_ready", "UTILITY", STATEMENTS);
    const good = {
      name: "Statements",
      template: "statement_ready",
      audience: { phones: [recipient(1)] },
      parameters: [{ field: "name", fallback: "member" }, { value: "October" }],
    };
    const past = new Date(Date.now() - 3_600_000).toISOString();
    const cases: [string, unknown, number, string, string?][] = [
      ["no body", "", 400, "invalid_request", "JSON object"],
      ["not JSON", "{name", 400, "invalid_request", "not valid JSON"],
      ["an array", [good], 400, "invalid_request", "JSON object"],
      ["unknown field", { ...good, colour: "red" }, 400, "invalid_request", "unknown field colour"],
      ["no name", { ...good, name: undefined }, 400, "invalid_request", "name:"],
      ["empty name", { ...good, name: "" }, 400, "invalid_request", "give the campaign a name"],
      ["blank name", { ...good, name: "   " }, 422, "invalid_campaign", "name"],
      ["long name", { ...good, name: "x".repeat(81) }, 400, "invalid_request", "name:"],
      ["name a number", { ...good, name: 5 }, 400, "invalid_request", "name:"],
      ["no template", { ...good, template: undefined }, 400, "invalid_request", "template:"],
      ["unknown template", { ...good, template: "nope" }, 422, "template_not_found"],
      ["unknown language", { ...good, language: "fr" }, 422, "template_not_found"],
      ["unknown sender", { ...good, from: "+254799999999" }, 409, "no_whatsapp_number"],
      ["no audience", { ...good, audience: undefined }, 400, "invalid_request", "audience:"],
      ["empty audience", { ...good, audience: {} }, 422, "invalid_audience"],
      ["unknown audience key", { ...good, audience: { groups: ["a"] } }, 400, "invalid_request", "audience: unknown field groups"],
      ["segment not a uuid", { ...good, audience: { segmentId: "vip" } }, 400, "invalid_request", "audience.segmentId"],
      ["unknown segment", { ...good, audience: { segmentId: "00000000-0000-4000-8000-000000000000" } }, 404, "not_found"],
      ["contact id not a uuid", { ...good, audience: { contactIds: ["x"] } }, 400, "invalid_request", "audience.contactIds[0]"],
      [
        "too many tags",
        { ...good, audience: { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) } },
        400,
        "invalid_request",
        "audience.tags",
      ],
      ["phones not a list", { ...good, audience: { phones: recipient(1) } }, 400, "invalid_request", "audience.phones"],
      ["nobody valid", { ...good, audience: { phones: ["12", "34"] } }, 422, "empty_audience"],
      ["everyone not boolean", { ...good, audience: { everyone: "yes" } }, 400, "invalid_request", "audience.everyone"],
      ["too few values", { ...good, parameters: [{ field: "name" }] }, 422, "invalid_parameters", "takes 2 values"],
      [
        "unmapped field",
        { ...good, parameters: [{ field: "shoe_size" }, { value: "x" }] },
        422,
        "invalid_parameters",
        "not a contact field",
      ],
      [
        "field and value",
        { ...good, parameters: [{ field: "name", value: "x" }, { value: "x" }] },
        400,
        "invalid_request",
        "parameters[0]",
      ],
      ["neither", { ...good, parameters: [{}, { value: "x" }] }, 400, "invalid_request", "give field"],
      ["fallback on a value", { ...good, parameters: [{ value: "x", fallback: "y" }, { value: "x" }] }, 400, "invalid_request", "fallback"],
      ["empty value", { ...good, parameters: [{ value: "" }, { value: "x" }] }, 400, "invalid_request", "parameters[0].value"],
      ["blank value", { ...good, parameters: [{ value: "   " }, { value: "x" }] }, 422, "invalid_parameters"],
      ["long value", { ...good, parameters: [{ value: "x".repeat(1025) }, { value: "x" }] }, 400, "invalid_request", "parameters[0].value"],
      ["schedule without offset", { ...good, scheduledFor: "2026-12-01T09:00:00" }, 400, "invalid_request", "with its offset"],
      ["schedule not a date", { ...good, scheduledFor: "tomorrow" }, 400, "invalid_request", "scheduledFor"],
      ["schedule past", { ...good, scheduledFor: past }, 422, "invalid_schedule", "passed"],
      ["draft not boolean", { ...good, draft: "yes" }, 400, "invalid_request", "draft"],
      ["NUL in the name", { ...good, name: "a\u0000b" }, 400, "invalid_request", "NUL"],
    ];
    for (const [what, body, status, code, words] of cases) {
      const answer = await call(t.key, "POST", "/api/v1/campaigns", body);
      expect(answer.status, what).toBe(status);
      expect(answer.body.code, what).toBe(code);
      expect(answer.body.message.length, what).toBeGreaterThan(5);
      if (words) expect(answer.body.message, what).toContain(words);
    }
    // A body over 64 KB is refused before it is read.
    const huge = await call(t.key, "POST", "/api/v1/campaigns", {
      ...good,
      audience: { phones: Array.from({ length: 5000 }, (_, i) => recipient(i)) },
    });
    expect(huge).toMatchObject({ status: 413, body: { code: "payload_too_large" } });
    expect(await campaignCount(t.organizationId)).toBe(0);
    expect(await call(t.key, "POST", "/api/v1/campaigns", good)).toMatchObject({ status: 201 });
  });

  it("answers a repeat with the same Idempotency-Key with the first campaign, and refuses the key for another body", async () => {
    const t = await tenant("Soko Traders");
    await template(t, "statement_ready", "UTILITY", STATEMENTS);
    const body = {
      name: "Statements",
      template: "statement_ready",
      audience: { phones: [recipient(1), recipient(2)] },
      parameters: [{ field: "name", fallback: "member" }, { value: "October" }],
      scheduledFor: inAnHour(),
    };
    const key = { "Idempotency-Key": "2f0c6a1e-statements-october" };
    const first = await call(t.key, "POST", "/api/v1/campaigns", body, key);
    expect(first.status).toBe(201);
    const again = await call(t.key, "POST", "/api/v1/campaigns", body, key);
    expect(again).toEqual(first);
    // Two at once with a new key: one campaign.
    const both = await Promise.all(
      [1, 2].map(() => call(t.key, "POST", "/api/v1/campaigns", { ...body, name: "Raced" }, { "Idempotency-Key": "raced-key" })),
    );
    expect(both.map((b) => b.status)).toEqual([201, 201]);
    expect(both[0]!.body.id).toBe(both[1]!.body.id);
    expect(await campaignCount(t.organizationId)).toBe(2);

    // The repeat answers the campaign as it is now.
    await call(t.key, "POST", `/api/v1/campaigns/${first.body.id}/pause`);
    expect((await call(t.key, "POST", "/api/v1/campaigns", body, key)).body).toMatchObject({ id: first.body.id, status: "paused" });

    expect(await call(t.key, "POST", "/api/v1/campaigns", { ...body, name: "Other" }, key)).toMatchObject({
      status: 409,
      body: { code: "idempotency_conflict" },
    });
    // A key of a message is not a campaign's.
    const message = await call(
      t.key,
      "POST",
      "/api/v1/messages",
      { to: recipient(3), template: "statement_ready", parameters: ["Amina", "May"] },
      { "Idempotency-Key": "shared-key" },
    );
    expect(message.status).toBe(202);
    expect(await call(t.key, "POST", "/api/v1/campaigns", body, { "Idempotency-Key": "shared-key" })).toMatchObject({
      status: 409,
      body: { code: "idempotency_conflict" },
    });
    // A refused request leaves its key for the corrected one; a bad key is refused.
    const refused = await call(t.key, "POST", "/api/v1/campaigns", { ...body, template: "nope" }, { "Idempotency-Key": "fixed" });
    expect(refused).toMatchObject({ status: 422, body: { code: "template_not_found" } });
    expect((await call(t.key, "POST", "/api/v1/campaigns", { ...body, name: "Fixed" }, { "Idempotency-Key": "fixed" })).status).toBe(201);
    expect(await call(t.key, "POST", "/api/v1/campaigns", body, { "Idempotency-Key": "é" })).toMatchObject({
      status: 400,
      body: { code: "invalid_request" },
    });
    expect(await campaignCount(t.organizationId)).toBe(3);
    // Another tenant's same key is its own.
    const other = await tenant("Other Traders");
    await template(other, "statement_ready", "UTILITY", STATEMENTS);
    const theirs = await call(other.key, "POST", "/api/v1/campaigns", body, key);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(first.body.id);
  });
  it("never answers 500 to a mangled body or query", async () => {
    const t = await tenant("Fuzz Traders");
    await template(t, "statement_ready", "UTILITY", STATEMENTS);
    const good = {
      name: "Statements",
      template: "statement_ready",
      language: "en",
      audience: { phones: [recipient(1)], tags: ["members"] },
      parameters: [{ field: "name", fallback: "member" }, { value: "October" }],
      header: { value: "x" },
      scheduledFor: inAnHour(),
      draft: true,
    };
    const odd = [null, 0, -1, 1e308, true, "", "x".repeat(2000), "\ud800", "12", [], {}, ["a"], [{}], [null], { field: 1 }, "constructor"];
    let seed = 14;
    const rng = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(items: readonly T[]) => items[Math.floor(rng() * items.length)]!;
    /** A copy of the body with one value somewhere in it replaced by an odd one (or a key added). */
    const mangle = (value: unknown, depth = 0): unknown => {
      if (value === null || typeof value !== "object" || depth > 3 || rng() < 0.25) return pick(odd);
      const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as never) : { ...value };
      const keys = Object.keys(copy);
      if (!Array.isArray(value) && rng() < 0.1) copy[pick(["__proto__", "extra", "segmentId", "everyone", "value"])] = pick(odd);
      else if (keys.length) {
        const key = pick(keys);
        copy[key] = mangle(copy[key], depth + 1);
      }
      return copy;
    };
    const statuses = new Set<number>();
    for (let i = 0; i < 150; i++) {
      const body = mangle(good);
      const answer = await call(t.key, "POST", "/api/v1/campaigns", body);
      expect(answer.status, JSON.stringify(body)).toBeLessThan(500);
      if (answer.status >= 400) expect(answer.body.code, JSON.stringify(body)).toEqual(expect.any(String));
      else expect(answer.body.status, JSON.stringify(body)).toBe("draft");
      statuses.add(answer.status);
    }
    expect([...statuses].some((s) => s >= 400)).toBe(true);
    for (const query of [
      "status=__proto__",
      "cursor=%00",
      "limit=1e999",
      "search=%ED%A0%80",
      "search=%25%5F%5C",
      "limit=-1",
      "cursor=MjAyNi0xMS0yMyAxMjowMDowMHx4",
    ]) {
      const answer = await call(t.key, "GET", `/api/v1/campaigns?${query}`);
      expect(answer.status, query).toBeLessThan(500);
    }
    // Cursors JavaScript would read but PostgreSQL would not: refused as cursors.
    const cursor = (text: string) => Buffer.from(text).toString("base64url");
    for (const text of [
      `2026-11-23 12:00:00+00|${"-".repeat(36)}`,
      `2026-11-23 12:00:00+00|${"a".repeat(36)}`,
      "0000-01-01 00:00:00+00|00000000-0000-4000-8000-000000000000",
      "2026-02-30 10:00:00+00|00000000-0000-4000-8000-000000000000",
      "2026-11-23 24:00:00+00|00000000-0000-4000-8000-000000000000",
    ])
      expect((await call(t.key, "GET", `/api/v1/campaigns?cursor=${cursor(text)}`)).status, text).toBe(400);
    for (const id of ["%00", "x".repeat(300), "constructor", "00000000-0000-0000-0000-000000000000", "%ZZ", "-".repeat(36), "a".repeat(36)])
      for (const [method, path] of [
        ["GET", `/api/v1/campaigns/${id}`],
        ["POST", `/api/v1/campaigns/${id}/pause`],
        ["POST", `/api/v1/campaigns/${id}/cancel`],
      ])
        expect((await call(t.key, method!, path!)).status, path).toBe(404);
  });
});

describe("the list", () => {
  it("searches by name or template, filters by status and pages by cursor", async () => {
    const t = await tenant("Maji Water Company");
    await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    await template(t, "bill_ready", "UTILITY", "Your water bill for {{1}} is ready.");
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const created = await call(t.key, "POST", "/api/v1/campaigns", {
        name: `Rationing ${i}`,
        template: i < 5 ? "water_notice" : "bill_ready",
        audience: { phones: [recipient(i)] },
        parameters: [{ value: "Nakuru East" }],
        ...(i % 2 ? { draft: true } : { scheduledFor: inAnHour() }),
      });
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    const newestFirst = [...ids].reverse();
    const first = await call(t.key, "GET", "/api/v1/campaigns?limit=3");
    expect(first.status).toBe(200);
    expect(first.body.data.map((c: { id: string }) => c.id)).toEqual(newestFirst.slice(0, 3));
    const second = await call(t.key, "GET", `/api/v1/campaigns?limit=3&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((c: { id: string }) => c.id)).toEqual(newestFirst.slice(3, 6));
    const third = await call(t.key, "GET", `/api/v1/campaigns?limit=3&cursor=${second.body.nextCursor}`);
    expect(third.body).toMatchObject({ data: [{ id: ids[0] }], nextCursor: null });
    expect((await call(t.key, "GET", "/api/v1/campaigns")).body.data).toHaveLength(7);

    const names = async (query: string) =>
      (await call(t.key, "GET", `/api/v1/campaigns?${query}`)).body.data.map((c: { name: string }) => c.name).sort();
    expect(await names("search=rationing%203")).toEqual(["Rationing 3"]);
    expect(await names("search=bill_")).toEqual(["Rationing 5", "Rationing 6"]);
    expect(await names("status=draft")).toEqual(["Rationing 1", "Rationing 3", "Rationing 5"]);
    expect(await names("status=scheduled&search=bill")).toEqual(["Rationing 6"]);
    expect(await names("status=completed")).toEqual([]);
    expect(await names("search=100%25")).toEqual([]);

    for (const query of [
      "status=done",
      "limit=0",
      "limit=101",
      "cursor=nonsense!",
      "cursor=bm9uc2Vuc2U",
      "colour=red",
      `search=${"x".repeat(101)}`,
    ]) {
      const answer = await call(t.key, "GET", `/api/v1/campaigns?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.code, query).toBe("invalid_request");
    }
  });
});

describe("pause, resume and cancel", () => {
  it("pause and resume a sending campaign, which then completes with everyone sent to once", async () => {
    const t = await tenant("Kaunti ya Kisumu");
    await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    await setBucketRate(t.phoneNumberId, 80);
    const phones = Array.from({ length: 300 }, (_, i) => recipient(i));
    const { body: created } = await call(t.key, "POST", "/api/v1/campaigns", {
      name: "Rationing",
      template: "water_notice",
      audience: { phones },
      parameters: [{ value: "Kondele" }],
    });
    await feedCampaigns();
    await drainDispatcher();
    const paused = await call(t.key, "POST", `/api/v1/campaigns/${created.id}/pause`);
    expect(paused).toMatchObject({ status: 200, body: { id: created.id, status: "paused", pausedReason: null } });
    const sentBefore = (await metaReceived(meta.graph, t.phoneNumberId)).length;
    expect(sentBefore).toBeLessThan(300);
    for (let i = 0; i < 3; i++) {
      await feedCampaigns();
      await drainDispatcher();
    }
    expect((await metaReceived(meta.graph, t.phoneNumberId)).length).toBe(sentBefore);
    expect(await call(t.key, "POST", `/api/v1/campaigns/${created.id}/pause`)).toMatchObject({
      status: 409,
      body: { code: "campaign_state" },
    });
    await aSecondLater(created.id);
    const whilePaused = (await call(t.key, "GET", `/api/v1/campaigns/${created.id}`)).body;
    expect(whilePaused.counts.sent).toBe(sentBefore);
    expect(whilePaused.counts.queued).toBe(300 - sentBefore);

    expect(await call(t.key, "POST", `/api/v1/campaigns/${created.id}/resume`)).toMatchObject({
      status: 200,
      body: { status: "sending" },
    });
    expect(await call(t.key, "POST", `/api/v1/campaigns/${created.id}/resume`)).toMatchObject({
      status: 409,
      body: { code: "campaign_state" },
    });
    await runToTheEnd(t, created.id, { sent: 300, read: 300 });
    const atMeta = await metaReceived(meta.graph, t.phoneNumberId);
    expect(new Set(atMeta.map((m) => m.to)).size).toBe(300);
    expect(atMeta).toHaveLength(300);
    expect((await call(t.key, "GET", `/api/v1/campaigns/${created.id}`)).body).toMatchObject({
      status: "completed",
      counts: { queued: 0, sent: 300, delivered: 300, read: 300, failed: 0 },
    });
    for (const change of ["pause", "resume", "cancel"])
      expect(await call(t.key, "POST", `/api/v1/campaigns/${created.id}/${change}`), change).toMatchObject({
        status: 409,
        body: { code: "campaign_state" },
      });
  });

  it("pause, resume and cancel scheduled and draft campaigns; cancel mid-way leaves the rest out", async () => {
    const t = await tenant("Kaunti ya Kakamega");
    await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    const body = { name: "Later", template: "water_notice", audience: { phones: [recipient(1)] }, parameters: [{ value: "Lurambi" }] };
    const { body: scheduled } = await call(t.key, "POST", "/api/v1/campaigns", { ...body, scheduledFor: inAnHour() });
    const path = (id: string, change: string) => `/api/v1/campaigns/${id}/${change}`;
    expect((await call(t.key, "POST", path(scheduled.id, "resume"))).body.code).toBe("campaign_state");
    expect((await call(t.key, "POST", path(scheduled.id, "pause"))).body.status).toBe("paused");
    // It never started and its time is ahead: it is scheduled again.
    expect((await call(t.key, "POST", path(scheduled.id, "resume"))).body).toMatchObject({ status: "scheduled", startedAt: null });
    expect((await call(t.key, "POST", path(scheduled.id, "cancel"))).body).toMatchObject({
      status: "cancelled",
      finishedAt: expect.any(String),
    });
    expect((await call(t.key, "POST", path(scheduled.id, "cancel"))).body.code).toBe("campaign_state");

    const { body: draft } = await call(t.key, "POST", "/api/v1/campaigns", { ...body, draft: true });
    expect(await call(t.key, "POST", path(draft.id, "pause"))).toMatchObject({ status: 409, body: { code: "campaign_state" } });
    expect(await call(t.key, "POST", path(draft.id, "resume"))).toMatchObject({ status: 409, body: { code: "campaign_state" } });
    expect(await call(t.key, "POST", path(draft.id, "cancel"))).toMatchObject({ status: 200, body: { status: "cancelled" } });

    await setBucketRate(t.phoneNumberId, 80);
    const { body: sending } = await call(t.key, "POST", "/api/v1/campaigns", {
      ...body,
      audience: { phones: Array.from({ length: 300 }, (_, i) => recipient(i)) },
    });
    await feedCampaigns();
    await drainDispatcher();
    const cancelled = await call(t.key, "POST", path(sending.id, "cancel"));
    expect(cancelled.body.status).toBe("cancelled");
    await feedCampaigns();
    await drainDispatcher();
    const sent = (await metaReceived(meta.graph, t.phoneNumberId)).length;
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(300);
    await aSecondLater(sending.id);
    const after = (await call(t.key, "GET", `/api/v1/campaigns/${sending.id}`)).body;
    expect(after.counts).toMatchObject({ queued: 0, sent });
    // Path and method mistakes.
    expect(await call(t.key, "GET", path(sending.id, "pause"))).toMatchObject({ status: 405, body: { code: "method_not_allowed" } });
    expect(await call(t.key, "POST", path(sending.id, "restart"))).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect(await call(t.key, "POST", path("not-an-id", "pause"))).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect(await call(t.key, "GET", "/api/v1/campaigns/00000000-0000-4000-8000-000000000000")).toMatchObject({
      status: 404,
      body: { code: "not_found" },
    });
  });
});

describe("tenants", () => {
  it("never reach another tenant's campaign, segment or contacts", async () => {
    const a = await tenant("Amani Traders");
    const b = await tenant("Baraka Sacco");
    await template(a, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    await template(b, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    const { contact } = await saveContact(a, { name: "Achieng", phone: recipient(1), tags: ["estate"] });
    const segment = await saveSegment(a, { name: "Estate", filter: { tag: "estate" } });
    const body = { name: "A's notice", template: "water_notice", audience: { segmentId: segment.id }, parameters: [{ value: "Kibos" }] };
    const { body: theirs } = await call(a.key, "POST", "/api/v1/campaigns", { ...body, scheduledFor: inAnHour() });
    expect(theirs).toMatchObject({ status: "scheduled", audienceLabel: "Segment Estate", estimate: { recipients: 1 } });

    for (const [method, path] of [
      ["GET", `/api/v1/campaigns/${theirs.id}`],
      ["POST", `/api/v1/campaigns/${theirs.id}/pause`],
      ["POST", `/api/v1/campaigns/${theirs.id}/resume`],
      ["POST", `/api/v1/campaigns/${theirs.id}/cancel`],
    ] as const)
      expect(await call(b.key, method, path), `${method} ${path}`).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect((await call(b.key, "GET", "/api/v1/campaigns")).body).toEqual({ data: [], nextCursor: null, hasMore: false });
    expect((await call(b.key, "GET", "/api/v1/campaigns?search=notice")).body.data).toEqual([]);
    // A's segment and contacts are nothing to B.
    expect(await call(b.key, "POST", "/api/v1/campaigns", body)).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect(await call(b.key, "POST", "/api/v1/campaigns", { ...body, audience: { contactIds: [contact.id] } })).toMatchObject({
      status: 422,
      body: { code: "empty_audience" },
    });
    expect(await call(b.key, "POST", "/api/v1/campaigns", { ...body, audience: { tags: ["estate"] } })).toMatchObject({
      status: 422,
      body: { code: "empty_audience" },
    });
    // A's campaign is as A left it.
    expect((await call(a.key, "GET", `/api/v1/campaigns/${theirs.id}`)).body.status).toBe("scheduled");
    expect(await campaignCount(b.organizationId)).toBe(0);
  });
});

describe("media headers and buttons", () => {
  it("takes a media header's file and the buttons' values, stores and answers them; a bad one is refused and stores nothing", async () => {
    const t = await tenant("Nyota Savings Sacco");
    await approvedMediaTemplate(meta.graph, t, "dividend_poster", {
      body: "Habari {{1}}, your dividend statement for 2026 is ready.",
      buttons: [{ type: "URL", text: "View statement", url: "https://nyota.co.ke/statements/{{1}}", example: ["NYOTA-0042"] }],
    });
    const good = {
      name: "Dividend posters",
      template: "dividend_poster",
      audience: { phones: [recipient(1)] },
      parameters: [{ field: "first_name", fallback: "member" }],
      header: { link: "https://nyota.co.ke/media/gawio-2026.jpg" },
      buttons: [{ index: 0, field: "phone" }],
      draft: true,
    };
    const cases: [string, unknown, number, string, string][] = [
      ["http link", { ...good, header: { link: "http://nyota.co.ke/a.jpg" } }, 422, "invalid_parameters", "https://"],
      ["no header", { ...good, header: undefined }, 422, "invalid_parameters", "image header"],
      [
        "link and mediaId",
        { ...good, header: { link: good.header.link, mediaId: crypto.randomUUID() } },
        400,
        "invalid_request",
        "not both",
      ],
      ["file and value", { ...good, header: { link: good.header.link, value: "x" } }, 400, "invalid_request", "header"],
      ["mediaId not a uuid", { ...good, header: { mediaId: "poster" } }, 400, "invalid_request", "header.mediaId"],
      ["unknown media", { ...good, header: { mediaId: crypto.randomUUID() } }, 404, "not_found", "header.mediaId"],
      ["no buttons", { ...good, buttons: undefined }, 422, "invalid_parameters", "button 1 (View statement)"],
      ["a button twice", { ...good, buttons: [good.buttons[0], good.buttons[0]] }, 400, "invalid_request", "each button once"],
      ["button index", { ...good, buttons: [{ index: 10, value: "x" }] }, 400, "invalid_request", "buttons[0].index"],
      ["button field and value", { ...good, buttons: [{ index: 0, field: "phone", value: "x" }] }, 400, "invalid_request", "buttons[0]"],
    ];
    for (const [what, body, status, code, words] of cases) {
      const answer = await call(t.key, "POST", "/api/v1/campaigns", body);
      expect(answer.status, what).toBe(status);
      expect(answer.body.code, what).toBe(code);
      expect(answer.body.message, what).toContain(words);
    }
    expect(await campaignCount(t.organizationId)).toBe(0);

    const created = await call(t.key, "POST", "/api/v1/campaigns", good);
    expect(created.status).toBe(201);
    const parameters = {
      body: [{ field: "first_name", fallback: "member" }],
      headerMedia: { link: "https://nyota.co.ke/media/gawio-2026.jpg" },
      buttons: [{ index: 0, source: { field: "phone" } }],
    };
    expect(created.body).toMatchObject({ status: "draft", parameters, estimate: { recipients: 1 } });
    const got = await call(t.key, "GET", `/api/v1/campaigns/${created.body.id}`);
    expect(got).toMatchObject({ status: 200, body: { parameters } });
    const [row] = await rawQuery<{ parameters: unknown }>(`select parameters from campaigns where id = $1`, [created.body.id]);
    expect(row!.parameters).toEqual(parameters);
  });
});

/** A member moved into the tenant's organisation as an admin, signed in (the team tests cover invitations). */
async function admin(t: Tenant, firstName: string) {
  const account = await createVerifiedUser();
  await rawQuery(`update users set organization_id = $2, org_role = 'admin', first_name = $3, last_name = 'Admin' where id = $1`, [
    account.user.id,
    t.organizationId,
    firstName,
  ]);
  const cookie = await signedInCookie(account.email, account.password);
  const approver: Approver = { organizationId: t.organizationId, userId: account.user.id, role: "admin" };
  return { userId: account.user.id, cookie, approver };
}

/** The campaign page's approve button as a browser without JavaScript posts it: the redirect, or the answer's status and message. */
async function approveOnPage(cookie: string, id: string) {
  let value: unknown;
  try {
    value = await campaignAction(routeArgs(formRequest(`/messaging/campaigns/${id}`, { intent: "approve" }, { cookie }), { id }));
  } catch (thrown) {
    value = thrown;
  }
  if (value instanceof Response) return { status: value.status, location: value.headers.get("location"), message: null };
  const wrapped = value as { data: { toast?: { message: string } | null }; init?: { status?: number } };
  return { status: wrapped.init?.status ?? 200, location: null, message: wrapped.data.toast?.message ?? null };
}

async function refusalOf(work: Promise<unknown>) {
  try {
    await work;
  } catch (error) {
    if (isRefusal(error, "campaign")) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error("it was accepted");
}

const KEY_HOLDER =
  "This campaign was made with the organisation's API key, which you have seen, so you cannot approve or decline it: an owner or admin who has never revealed that key must.";

describe("broadcast approval", () => {
  it("answers awaiting_approval above the threshold and sends nothing until an owner or admin who never saw the key approves it", async () => {
    // The owner's first read of the key made it: the owner holds it.
    const t = await tenant("Kaunti ya Machakos");
    await template(t, "statement_ready", "UTILITY", STATEMENTS);
    await rawQuery(`update organizations set approval_threshold = 2 where id = $1`, [t.organizationId]);
    const body = {
      name: "Machakos rates reminder",
      template: "statement_ready",
      audience: { phones: [recipient(41), recipient(42), recipient(43)] },
      parameters: [{ value: "Mkazi" }, { value: "2026" }],
    };
    // At the threshold it starts; above it, it waits, with its estimate and nothing queued.
    const at = await call(t.key, "POST", "/api/v1/campaigns", { ...body, audience: { phones: [recipient(44), recipient(45)] } });
    expect(at.body.status).toBe("sending");
    const created = await call(t.key, "POST", "/api/v1/campaigns", body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: "awaiting_approval",
      startedAt: null,
      approval: { requestedAt: expect.any(String), approvedBy: null, declinedBy: null },
      estimate: { recipients: 3 },
    });
    const id = created.body.id as string;
    const scheduled = await call(t.key, "POST", "/api/v1/campaigns", { ...body, scheduledFor: inAnHour() });
    expect(scheduled.body).toMatchObject({ status: "awaiting_approval", estimate: { recipients: 3 } });
    const waiting = await call(t.key, "GET", "/api/v1/campaigns?status=awaiting_approval");
    expect(waiting.body.data.map((c: { id: string }) => c.id).sort()).toEqual([id, scheduled.body.id].sort());
    // The API cannot start it: resume is for paused campaigns.
    expect((await call(t.key, "POST", `/api/v1/campaigns/${id}/resume`)).status).toBe(409);
    await feedCampaigns();
    await drainDispatcher();
    const [queued] = await rawQuery<{ n: number }>(`select count(*)::int as n from messages where campaign_id = $1`, [id]);
    expect(queued!.n).toBe(0);

    // The owner made the key, so could have made the campaign: refused, on the server and on the page
    // (the form post without JavaScript answers the sentence), and it still waits.
    const ownerApprover: Approver = { organizationId: t.organizationId, userId: t.userId, role: "owner" };
    expect(await refusalOf(approveCampaign(ownerApprover, id))).toEqual({ status: 403, code: "key_holder", message: KEY_HOLDER });
    const ownerPost = await approveOnPage(t.cookie, id);
    expect(ownerPost).toEqual({ status: 403, location: null, message: KEY_HOLDER });
    const ownerPage = await campaignLoader(routeArgs(getRequest(`/messaging/campaigns/${id}`, { cookie: t.cookie }), { id }));
    expect(ownerPage).toMatchObject({ canDecide: false, madeWithApiKey: true, keyHolderWords: KEY_HOLDER });
    expect((await call(t.key, "GET", `/api/v1/campaigns/${id}`)).body).toMatchObject({
      status: "awaiting_approval",
      approval: { approvedBy: null },
    });

    // An admin who revealed the key on the Developers page holds it too.
    const revealed = await admin(t, "Wanjiku");
    const developers = await run(developersLoader, getRequest("/developers?reveal=1", { cookie: revealed.cookie }));
    expect(developers.data.key).toBe(t.key);
    expect(await refusalOf(approveCampaign(revealed.approver, id))).toMatchObject({ status: 403, code: "key_holder" });

    // An admin who never saw it approves, and it sends.
    const checker = await admin(t, "Otieno");
    const checkerPage = await campaignLoader(routeArgs(getRequest(`/messaging/campaigns/${id}`, { cookie: checker.cookie }), { id }));
    expect(checkerPage).toMatchObject({ canDecide: true, madeWithApiKey: true, keyHolderWords: null });
    expect(await approveOnPage(checker.cookie, id)).toEqual({ status: 302, location: `/messaging/campaigns/${id}`, message: null });
    await runToTheEnd(t, id, { sent: 3, read: 3 });
    const got = await call(t.key, "GET", `/api/v1/campaigns/${id}`);
    expect(got.body).toMatchObject({ status: "completed", approval: { approvedBy: "Otieno Admin", approvedAt: expect.any(String) } });
    // The API can still cancel the scheduled one while it waits.
    expect((await call(t.key, "POST", `/api/v1/campaigns/${scheduled.body.id}/cancel`)).body.status).toBe("cancelled");
    // The documentation says the rule.
    const doc = openApiDocument() as unknown as { paths: Record<string, { post: { description: string } }> };
    expect(doc.paths["/api/v1/campaigns"]!.post.description).toContain("an owner or admin who has never seen the API key it was made with");
  });

  it("counts whoever regenerates the key as holding the new one", async () => {
    const t = await tenant("Kaunti ya Kitui");
    await template(t, "statement_ready", "UTILITY", STATEMENTS);
    await rawQuery(`update organizations set approval_threshold = 0 where id = $1`, [t.organizationId]);
    const regenerating = await admin(t, "Mutua");
    const fresh = await run(regenerateApi.action, formRequest("/api/developer/api-key/regenerate", {}, { cookie: regenerating.cookie }));
    expect(fresh.status).toBe(200);
    const created = await call(fresh.data.key, "POST", "/api/v1/campaigns", {
      name: "Kitui rates reminder",
      template: "statement_ready",
      audience: { phones: [recipient(61)] },
      parameters: [{ value: "Mkazi" }, { value: "2026" }],
    });
    expect(created.body.status).toBe("awaiting_approval");
    expect(await refusalOf(approveCampaign(regenerating.approver, created.body.id))).toMatchObject({ status: 403, code: "key_holder" });
    // The owner held only the old key, revoked before this campaign was made: the owner may approve it.
    expect(await approveCampaign({ organizationId: t.organizationId, userId: t.userId, role: "owner" }, created.body.id)).toEqual({
      outcome: "sending",
    });
  });
});
