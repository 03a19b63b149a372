import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import pg from "pg";
import { testDatabaseUrl } from "../support/database";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { TEMPLATE_CREATE_EXAMPLE } from "~/.server/adapters/api-v1/schemas";
import { CONTACT_CREATE_EXAMPLE } from "~/.server/adapters/api-v1/contact-schemas";
import * as keyApi from "~/routes/api/developer.api-key";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";
import { startApiV1Server } from "../support/api-v1-server";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedBodyTemplate, recipient } from "../support/sending-kit";

// Issue 38, item 1: every create of the public API that takes an Idempotency-Key, sent twice and
// then twenty times at once with one key: one thing is made, every answer is the first one's, a
// different request with the key is refused and changes nothing, and the database keeps answering.

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
  const t = { organizationId: account.organization.id, key: read.data.key as string, ...connection };
  await approvedBodyTemplate(meta.graph, t, "statement_ready", "UTILITY", "Dear {{1}}, your statement for {{2}} is ready.");
  return t;
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

const png = () => Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), randomBytes(400)]);

interface Create {
  path: string;
  /** A fresh request body each call (the same request, as a client retrying builds it again). */
  body: (variant?: "other") => BodyInit | object;
  contentType?: string;
  status: number;
  /** How many of what it makes the organisation holds. */
  count: (t: Tenant) => Promise<number>;
}

const count =
  (table: string, where = "true") =>
  async (t: Tenant) =>
    (
      await rawQuery<{ n: number }>(`select count(*)::int as n from ${table} where organization_id = $1 and ${where}`, [t.organizationId])
    )[0]!.n;

const IN_A_MONTH = new Date(Date.now() + 30 * 86_400_000).toISOString();
const fixedPng = png();
const otherPng = png();

const CREATES: Record<string, Create> = {
  message: {
    path: "/api/v1/messages",
    body: (v) => ({ to: recipient(v ? 2 : 1), template: "statement_ready", parameters: ["Amina", "May"] }),
    status: 202,
    count: count("messages", "direction = 'outbound'"),
  },
  campaign: {
    path: "/api/v1/campaigns",
    body: (v) => ({
      name: v ? "Other statements" : "May statements",
      template: "statement_ready",
      audience: { phones: [recipient(1), recipient(2)] },
      parameters: [{ field: "name", fallback: "member" }, { value: "May" }],
      scheduledFor: IN_A_MONTH,
    }),
    status: 201,
    count: count("campaigns"),
  },
  contact: {
    path: "/api/v1/contacts",
    body: (v) => ({ ...CONTACT_CREATE_EXAMPLE, phone: recipient(v ? 4 : 3) }),
    status: 200,
    count: count("contacts"),
  },
  template: {
    path: "/api/v1/templates",
    body: (v) => ({ ...TEMPLATE_CREATE_EXAMPLE, name: v ? "other_update" : "order_update_two" }),
    status: 201,
    count: count("message_templates", "name <> 'statement_ready'"),
  },
  "template sample": {
    path: "/api/v1/template-samples?fileName=logo.png",
    body: (v) => new Uint8Array(v ? otherPng : fixedPng),
    contentType: "image/png",
    status: 201,
    count: count("template_media"),
  },
  "media file": {
    path: "/api/v1/media",
    body: (v) => {
      const form = new FormData();
      form.set("file", new Blob([new Uint8Array(v ? otherPng : fixedPng)], { type: "image/png" }), "receipt.png");
      return form;
    },
    status: 201,
    count: count("media_files"),
  },
};

async function create(t: Tenant, c: Create, key: string, variant?: "other") {
  const body = c.body(variant);
  const raw = body instanceof FormData || body instanceof Uint8Array;
  const response = await fetch(`${apiServer.base}${c.path}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${t.key}`,
      "Idempotency-Key": key,
      ...(c.contentType ? { "Content-Type": c.contentType } : raw ? {} : { "Content-Type": "application/json" }),
    },
    body: raw ? (body as BodyInit) : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The database still answers a plain read (a frozen PGlite never does, and the test times out here). */
async function databaseAnswers() {
  expect((await rawQuery<{ one: number }>(`select 1 as one`))[0]!.one).toBe(1);
}

describe.each(Object.keys(CREATES))("POST a %s with an Idempotency-Key", (what) => {
  const c = CREATES[what]!;

  it("answers a repeat with the first answer and makes nothing new", async () => {
    const t = await tenant(`Repeat ${what} Sacco`);
    const before = await c.count(t);
    const first = await create(t, c, "repeat-0001");
    expect(first, JSON.stringify(first.body)).toMatchObject({ status: c.status });
    const again = await create(t, c, "repeat-0001");
    expect(again).toEqual(first);
    await databaseAnswers();
    expect(await c.count(t)).toBe(before + 1);
  });

  it("makes one for twenty identical requests at once, and answers each with it", async () => {
    const t = await tenant(`Burst ${what} Sacco`);
    const before = await c.count(t);
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(t, c, "burst-0001")));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(c.status));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    await databaseAnswers();
    expect(await c.count(t)).toBe(before + 1);
  });

  it("refuses the key for a different request and makes nothing", async () => {
    const t = await tenant(`Conflict ${what} Sacco`);
    const first = await create(t, c, "conflict-0001");
    expect(first.status).toBe(c.status);
    const after = await c.count(t);
    expect(await create(t, c, "conflict-0001", "other")).toMatchObject({ status: 409, body: { code: "idempotency_conflict" } });
    expect(await c.count(t)).toBe(after);
  });
});

// Issue 40: two sends with one key that both pass the check for an earlier answer and reach the
// claim in queueMessage together. A transaction holding api_idempotency lets both get that far
// (the check only reads; the claim waits), then lets them race: the claim that loses must answer
// the winner's message, not queue a second. PostgreSQL only (PGlite has one connection, so two
// requests never stand at the claim at once).
describe("POST /api/v1/messages with one Idempotency-Key, twice at the same moment", () => {
  it.skipIf(!process.env.TEST_DATABASE_URL)("queues one message when both reach the claim together, and answers both with it", async () => {
    const t = await tenant("Claim Race Sacco");
    const c = CREATES.message!;
    const before = await c.count(t);
    const holder = new pg.Client({ connectionString: testDatabaseUrl() });
    await holder.connect();
    let both: Promise<Awaited<ReturnType<typeof create>>[]> | undefined;
    try {
      await holder.query("begin");
      // Reads pass; inserts wait (share row exclusive blocks row exclusive, not access share).
      await holder.query("lock table api_idempotency in share row exclusive mode");
      both = Promise.all([create(t, c, "claim-race-1"), create(t, c, "claim-race-1")]);
      await vi.waitFor(
        async () => {
          const waiting = await holder.query(`select 1 from pg_locks l where not l.granted and l.relation = 'api_idempotency'::regclass`);
          expect(waiting.rows).toHaveLength(2);
        },
        { timeout: 30_000, interval: 20 },
      );
      await holder.query("commit");
    } finally {
      await holder.end();
    }
    const answers = await both!;
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
    expect(answers[1]!.body.id).toBe(answers[0]!.body.id);
    await databaseAnswers();
    expect(await c.count(t)).toBe(before + 1);
  });
});
