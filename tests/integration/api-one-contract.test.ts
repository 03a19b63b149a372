import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { env } from "~/.server/infrastructure/config/env";
import { encryptSecret } from "~/.server/infrastructure/security/crypto";
import { ENDPOINTS, type Endpoint } from "~/.server/adapters/api-v1/endpoints";
import { ERROR_CODES } from "~/.server/adapters/api-v1/errors";
import { openApiDocument } from "~/.server/adapters/api-v1/openapi";
import { TEMPLATE_CREATE_EXAMPLE } from "~/.server/adapters/api-v1/schemas";
import { CONSENT_EXAMPLE, CONTACT_CREATE_EXAMPLE } from "~/.server/adapters/api-v1/contact-schemas";
import { AUTOMATION_RULE_CREATE_EXAMPLE } from "~/.server/adapters/api-v1/automation-schemas";
import { KNOWLEDGE_CREATE_EXAMPLE } from "~/.server/adapters/api-v1/assistant-schemas";
import { FLOW_CREATE_EXAMPLE } from "~/.server/adapters/api-v1/flows";
import { errorCatalogueRows } from "~/.server/adapters/api-v1/reference";
import * as keyApi from "~/routes/api/developer.api-key";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";
import { appFetch } from "../support/in-process-app";
import { startApiV1Server } from "../support/api-v1-server";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedBodyTemplate, recipient } from "../support/sending-kit";
import { connectSms, incomingSms } from "../support/sms";
import { receiveIncomingSms } from "~/.server/domains/sms";

// Issue 71 (decision 101): one contract on every endpoint of /api/v1. Every POST honours an
// Idempotency-Key and says whether its answer is a replay; a body of another type than JSON answers
// 415; every answer carries its request's id, every error its id and its catalogue entry; every list
// says hasMore; a key whose role may not see billing is not told the wallet.

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
  const t = { organizationId: account.organization.id, userId: account.user.id, key: read.data.key as string, ...connection };
  await approvedBodyTemplate(meta.graph, t, "statement_ready", "UTILITY", "Dear {{1}}, your statement for {{2}} is ready.");
  return t;
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** A conversation whose customer wrote just now, of an organisation with a default paybill: a request can be asked in it. */
async function payableConversation(t: Tenant) {
  await rawQuery(
    `insert into mpesa_shortcodes (organization_id, label, kind, business_short_code, environment, consumer_key_sealed,
           consumer_key_hint, consumer_secret_sealed, passkey_sealed, callback_token, is_default)
     values ($1, 'Main paybill', 'paybill', '174379', 'sandbox', $2, '-key', $2, $2, $3, true)`,
    [t.organizationId, encryptSecret("not-used-here"), randomBytes(24).toString("base64url")],
  );
  const from = recipient(6).replace(/^\+/, "");
  await meta.customerWrites(t.phoneNumberId, from, { text: "Nataka kulipa" });
  const [conversation] = await rawQuery<{ id: string }>(
    `select v.id from conversations v join contacts c on c.id = v.contact_id where v.organization_id = $1 and c.phone = $2`,
    [t.organizationId, `+${from}`],
  );
  return conversation!.id;
}

async function call(t: Tenant, method: string, path: string, init: { headers?: Record<string, string>; body?: BodyInit | object } = {}) {
  const raw = init.body instanceof FormData || init.body instanceof Uint8Array || typeof init.body === "string";
  const response = await fetch(`${apiServer.base}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${t.key}`,
      ...(init.body !== undefined && !raw ? { "Content-Type": "application/json" } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : raw ? (init.body as BodyInit) : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

const count =
  (table: string, where = "true") =>
  async (t: Tenant) =>
    (
      await rawQuery<{ n: number }>(`select count(*)::int as n from ${table} where organization_id = $1 and ${where}`, [t.organizationId])
    )[0]!.n;

const IN_A_MONTH = new Date(Date.now() + 30 * 86_400_000).toISOString();
const png = () => Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), randomBytes(400)]);
const campaignBody = (name: string) => ({
  name,
  template: "statement_ready",
  audience: { phones: [recipient(1), recipient(2)] },
  parameters: [{ field: "name", fallback: "member" }, { value: "May" }],
  scheduledFor: IN_A_MONTH,
});

/** A campaign scheduled a month ahead (made without a key), in `status` when given. */
async function scheduledCampaign(t: Tenant, status?: string) {
  const made = await call(t, "POST", "/api/v1/campaigns", { body: campaignBody(`Setup ${randomUUID().slice(0, 8)}`) });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  if (status) await rawQuery(`update campaigns set status = $2 where id = $1`, [made.body!.id, status]);
  return made.body!.id as string;
}

interface PostCase {
  /** The request, made ready (its path's ids made) once a tenant exists. */
  prepare: (
    t: Tenant,
  ) => Promise<{ path: string; request: (other?: boolean) => { headers?: Record<string, string>; body?: BodyInit | object } }>;
  /** What a second run without the key would add: counted before and after the replay. */
  made?: (t: Tenant) => Promise<number>;
}

const json = (path: string, body: (other?: boolean) => object) => async () => ({
  path,
  request: (other?: boolean) => ({ body: body(other) }),
});

/** Every POST of the API, by "POST path": a test below fails when a POST is missing here. */
const POSTS: Record<string, PostCase> = {
  "POST /api/v1/templates": {
    prepare: json("/api/v1/templates", (o) => ({ ...TEMPLATE_CREATE_EXAMPLE, name: o ? "other_update" : "order_update_two" })),
    made: count("message_templates", "name <> 'statement_ready'"),
  },
  "POST /api/v1/template-samples": {
    prepare: async () => {
      const first = png();
      const other = png();
      return {
        path: "/api/v1/template-samples?fileName=logo.png",
        request: (o) => ({ headers: { "Content-Type": "image/png" }, body: new Uint8Array(o ? other : first) }),
      };
    },
    made: count("template_media"),
  },
  "POST /api/v1/messages": {
    prepare: json("/api/v1/messages", (o) => ({ to: recipient(o ? 2 : 1), template: "statement_ready", parameters: ["Amina", "May"] })),
    made: count("messages", "direction = 'outbound'"),
  },
  "POST /api/v1/media": {
    prepare: async () => {
      const first = png();
      const other = png();
      return {
        path: "/api/v1/media",
        request: (o) => {
          const form = new FormData();
          form.set("file", new Blob([new Uint8Array(o ? other : first)], { type: "image/png" }), "receipt.png");
          return { body: form };
        },
      };
    },
    made: count("media_files"),
  },
  "POST /api/v1/payment-requests": {
    prepare: async (t) => {
      const conversationId = await payableConversation(t);
      return {
        path: "/api/v1/payment-requests",
        request: (o) => ({ body: { conversationId, amount: o ? 200 : 100, description: "Order 42" } }),
      };
    },
    made: count("payment_requests"),
  },
  // Cancelled once: a second cancel without the key is refused (payment_request_closed), a replay answers the first.
  "POST /api/v1/payment-requests/{id}/cancel": {
    prepare: async (t) => {
      const conversationId = await payableConversation(t);
      const asked = await call(t, "POST", "/api/v1/payment-requests", { body: { conversationId, amount: 300, description: "Order 43" } });
      expect(asked.status, JSON.stringify(asked.body)).toBe(201);
      return { path: `/api/v1/payment-requests/${asked.body!.id as string}/cancel`, request: () => ({}) };
    },
    made: count("payment_requests", "status = 'cancelled'"),
  },
  // An SMS to a customer who just wrote by SMS (no quiet hours), through the organisation's Africa's Talking account.
  "POST /api/v1/sms": {
    prepare: async (t) => {
      const token = await connectSms({
        actor: { user: { id: t.userId }, organization: { id: t.organizationId }, role: "owner" },
        organizationId: t.organizationId,
      });
      const date = new Date().toISOString().slice(0, 19).replace("T", " ");
      await receiveIncomingSms(token, incomingSms({ from: "+254711500600", text: "Habari", id: "one-contract-1", date }));
      return { path: "/api/v1/sms", request: (o) => ({ body: { to: "+254711500600", text: o ? "Another SMS" : "Oda yako iko tayari" } }) };
    },
    made: count("messages", "channel = 'sms' and direction = 'outbound'"),
  },
  "POST /api/v1/contacts": {
    prepare: json("/api/v1/contacts", (o) => ({ ...CONTACT_CREATE_EXAMPLE, phone: recipient(o ? 4 : 3) })),
    made: count("contacts"),
  },
  "POST /api/v1/contacts/{id}/consent": {
    prepare: async (t) => {
      const contact = await call(t, "POST", "/api/v1/contacts", { body: { ...CONTACT_CREATE_EXAMPLE, phone: recipient(5) } });
      expect(contact.status).toBe(200);
      return {
        path: `/api/v1/contacts/${contact.body!.id as string}/consent`,
        request: (o) => ({ body: { ...CONSENT_EXAMPLE, evidence: o ? "Asked again" : CONSENT_EXAMPLE.evidence } }),
      };
    },
    made: count("consent_events"),
  },
  "POST /api/v1/campaigns": {
    prepare: json("/api/v1/campaigns", (o) => campaignBody(o ? "Other statements" : "May statements")),
    made: count("campaigns"),
  },
  // The changes of a campaign's state: a second one without the key is refused (campaign_state), a replay answers the first.
  "POST /api/v1/campaigns/{id}/pause": {
    prepare: async (t) => {
      const id = await scheduledCampaign(t);
      return { path: `/api/v1/campaigns/${id}/pause`, request: () => ({}) };
    },
  },
  "POST /api/v1/campaigns/{id}/resume": {
    prepare: async (t) => {
      const id = await scheduledCampaign(t, "paused");
      return { path: `/api/v1/campaigns/${id}/resume`, request: () => ({}) };
    },
  },
  "POST /api/v1/campaigns/{id}/cancel": {
    prepare: async (t) => {
      const id = await scheduledCampaign(t);
      return { path: `/api/v1/campaigns/${id}/cancel`, request: () => ({}) };
    },
  },
  "POST /api/v1/automations/rules": {
    prepare: json("/api/v1/automations/rules", (o) => ({ ...AUTOMATION_RULE_CREATE_EXAMPLE, name: o ? "Other prices" : "Prices" })),
    made: count("automation_rules"),
  },
  "POST /api/v1/automations/knowledge": {
    prepare: json("/api/v1/automations/knowledge", (o) => ({ ...KNOWLEDGE_CREATE_EXAMPLE, title: o ? "Other hours" : "Opening hours" })),
    made: count("knowledge_articles"),
  },
  "POST /api/v1/automations/flows": {
    prepare: json("/api/v1/automations/flows", (o) => ({ ...FLOW_CREATE_EXAMPLE, name: o ? "Other flow" : "Order help" })),
    made: count("flows"),
  },
  "POST /api/v1/automations/flows/{id}/publish": {
    prepare: async (t) => {
      const flow = await call(t, "POST", "/api/v1/automations/flows", { body: FLOW_CREATE_EXAMPLE });
      expect(flow.status, JSON.stringify(flow.body)).toBe(201);
      return { path: `/api/v1/automations/flows/${flow.body!.id as string}/publish`, request: () => ({}) };
    },
    made: async (t) =>
      (
        await rawQuery<{ n: number }>(
          `select count(*)::int as n from flow_versions v join flows f on f.id = v.flow_id where f.organization_id = $1`,
          [t.organizationId],
        )
      )[0]!.n,
  },
  "POST /api/v1/hooks": {
    prepare: json("/api/v1/hooks", (o) => ({ targetUrl: `https://8.8.8.8/hooks/${o ? "other" : "first"}`, event: "message.received" })),
    made: count("rest_hooks"),
  },
};

const name = (e: Endpoint) => `${e.method.toUpperCase()} ${e.path}`;
const POST_ENDPOINTS = ENDPOINTS.filter((e) => e.method === "post");

describe("every POST of /api/v1 with an Idempotency-Key", () => {
  it("is every POST of the endpoint table, and the OpenAPI document gives each the key and the replay header", () => {
    expect(Object.keys(POSTS).sort()).toEqual(POST_ENDPOINTS.map(name).sort());
    const doc = openApiDocument() as unknown as {
      paths: Record<
        string,
        Record<string, { parameters: { name: string; in: string }[]; responses: Record<string, { headers?: object }> }>
      >;
    };
    for (const endpoint of POST_ENDPOINTS) {
      const operation = doc.paths[endpoint.path]!.post!;
      expect(operation.parameters, name(endpoint)).toContainEqual(expect.objectContaining({ name: "Idempotency-Key", in: "header" }));
      expect(operation.responses[String(endpoint.status)]!.headers, name(endpoint)).toHaveProperty("Idempotency-Replayed");
    }
  });

  it.each(POST_ENDPOINTS.map(name))(
    "%s: a repeat answers the first answer and does nothing again; another request is refused",
    async (which) => {
      const endpoint = POST_ENDPOINTS.find((e) => name(e) === which)!;
      const c = POSTS[which];
      expect(c, `${which} has no case here`).toBeDefined();
      const t = await tenant(`Once ${which.replace(/\W+/g, " ").trim().slice(0, 40)}`);
      const { path, request } = await c!.prepare(t);
      const key = `key-${randomUUID()}`;

      const first = await call(t, "POST", path, { ...request(), headers: { ...request().headers, "Idempotency-Key": key } });
      expect(first.status, JSON.stringify(first.body)).toBe(endpoint.status);
      expect(first.headers.get("idempotency-replayed")).toBe("false");
      const before = await c!.made?.(t);

      const again = await call(t, "POST", path, { ...request(), headers: { ...request().headers, "Idempotency-Key": key } });
      expect({ status: again.status, body: again.body }).toEqual({ status: first.status, body: first.body });
      expect(again.headers.get("idempotency-replayed")).toBe("true");
      if (c!.made) expect(await c!.made(t)).toBe(before);

      // Another request with the key: another body, or (a POST without one) another id in the path.
      const other = request(true);
      const otherPath = other.body === undefined ? path.replace(/[0-9a-f-]{36}/, randomUUID()) : path;
      const refused = await call(t, "POST", otherPath, { ...other, headers: { ...other.headers, "Idempotency-Key": key } });
      expect(refused.status, JSON.stringify(refused.body)).toBe(409);
      expect(refused.body).toMatchObject({ code: "idempotency_conflict" });
      expect(refused.headers.get("idempotency-replayed")).toBe("false");
      if (c!.made) expect(await c!.made(t)).toBe(before);

      // A new key sent twice at once (a client's retry racing its first try): one does the work, both answer it.
      if (c!.made && other.body !== undefined) {
        const raced = `key-${randomUUID()}`;
        const both = await Promise.all(
          [0, 1].map(() => call(t, "POST", path, { ...other, headers: { ...other.headers, "Idempotency-Key": raced } })),
        );
        expect(both.map((b) => b.status)).toEqual([endpoint.status, endpoint.status]);
        expect(both[1]!.body).toEqual(both[0]!.body);
        expect(both.map((b) => b.headers.get("idempotency-replayed")).sort()).toEqual(["false", "true"]);
        expect(await c!.made(t)).toBe(before! + 1);
      }
    },
  );
});

describe("a JSON body of another type", () => {
  const withBody = ENDPOINTS.filter((e) => e.body);

  it("answers 415 unsupported_media_type on every endpoint that takes JSON, and changes nothing", async () => {
    const t = await tenant("Media Types Sacco");
    const before = await count("contacts")(t);
    const refusals: [string, string | undefined, BodyInit][] = [
      ["text/plain", "text/plain", JSON.stringify(CONTACT_CREATE_EXAMPLE)],
      ["a form", "application/x-www-form-urlencoded", "name=Amina&phone=%2B254700000001"],
      ["XML", "application/xml", "<contact/>"],
      ["JSON in latin-1", "application/json; charset=iso-8859-1", "{}"],
    ];
    for (const endpoint of withBody) {
      const path = endpoint.path.replace("{id}", randomUUID());
      for (const [what, type, body] of refusals) {
        const refused = await call(t, endpoint.method.toUpperCase(), path, {
          headers: type ? { "Content-Type": type } : {},
          body: body as string,
        });
        expect(refused.status, `${name(endpoint)} ${what}`).toBe(415);
        expect(refused.headers.get("content-type")).toBe("application/problem+json");
        expect(refused.body).toMatchObject({ code: "unsupported_media_type", status: 415 });
        expect(refused.body!.message).toContain("Content-Type: application/json");
        if (type) expect(refused.body!.message).toContain(`(not ${type})`);
      }
    }
    expect(await count("contacts")(t)).toBe(before);
  });

  it("takes application/json with charset utf-8 and application/*+json", async () => {
    const t = await tenant("Charset Sacco");
    for (const [i, type] of [
      "application/json; charset=utf-8",
      "application/json;charset=UTF-8",
      "application/merge-patch+json",
    ].entries()) {
      const made = await call(t, "POST", "/api/v1/contacts", {
        headers: { "Content-Type": type },
        body: JSON.stringify({ ...CONTACT_CREATE_EXAMPLE, phone: recipient(10 + i) }),
      });
      expect(made.status, `${type}: ${JSON.stringify(made.body)}`).toBe(200);
    }
  });
});

describe("the request's id and the error catalogue", () => {
  it("answers every request with an X-Request-Id, an incoming well-formed one kept, and puts it and the catalogue's entry in every error", async () => {
    const t = await tenant("Request Id Sacco");
    const ok = await call(t, "GET", "/api/v1/account");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);

    const nginx = "0f5a8e2c9b7d4e1fa3c6b8d0e2f4a6c8";
    const kept = await call(t, "GET", "/api/v1/contacts/not-a-contact", { headers: { "X-Request-Id": nginx } });
    expect(kept.status).toBe(404);
    expect(kept.headers.get("x-request-id")).toBe(nginx);
    expect(kept.headers.get("content-type")).toBe("application/problem+json");
    expect(kept.body).toMatchObject({
      type: `${env().APP_URL}/developers/errors#error-not_found`,
      status: 404,
      code: "not_found",
      requestId: nginx,
    });
    expect(kept.body!.detail).toBe(kept.body!.message);
    expect(kept.body!.title).toEqual(expect.any(String));

    // A malformed one (a line break, too short, a quote) is not kept: a fresh id instead.
    for (const bad of ["short", 'abc"defghij', "x".repeat(200)]) {
      const fresh = await call(t, "GET", "/api/v1/nothing-here", { headers: { "X-Request-Id": bad } });
      expect(fresh.status).toBe(404);
      expect(fresh.headers.get("x-request-id")).not.toBe(bad);
      expect(fresh.body!.requestId).toBe(fresh.headers.get("x-request-id"));
    }
    // Before the key is even read: the refusal has its id too.
    const anonymous = await fetch(`${apiServer.base}/api/v1/account`);
    const body = (await anonymous.json()) as Record<string, unknown>;
    expect(anonymous.status).toBe(401);
    expect(body.requestId).toBe(anonymous.headers.get("x-request-id"));
    expect(body.type).toBe(`${env().APP_URL}/developers/errors#error-missing_api_key`);
  });

  it("links each code to a row of the published catalogue, whose anchor is error-<code>", () => {
    const rows = errorCatalogueRows().map((row) => row.code);
    expect(rows.sort()).toEqual([...ERROR_CODES].sort());
  });
});

describe("every list", () => {
  const lists = ENDPOINTS.filter((e) => e.method === "get" && !e.path.includes("{"));

  it("says hasMore in its schema and its answer: true while a next page follows", async () => {
    const doc = openApiDocument() as unknown as {
      components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
    };
    const t = await tenant("Lists Sacco");
    let checked = 0;
    for (const endpoint of lists) {
      const answered = await call(t, "GET", endpoint.path);
      // The partner programme answers 404 to an organisation outside it; its transactions are checked below.
      if (endpoint.path === "/api/v1/partner") continue;
      expect(answered.status, name(endpoint)).toBe(200);
      if (!Array.isArray(answered.body!.data)) continue;
      checked++;
      expect(answered.body!.hasMore, name(endpoint)).toBe(false);
      const schema = doc.components.schemas[(endpoint.response.meta() as { id: string }).id]!;
      expect(schema.required, name(endpoint)).toContain("hasMore");
    }
    expect(checked).toBeGreaterThanOrEqual(9);

    for (const i of [20, 21]) await call(t, "POST", "/api/v1/contacts", { body: { ...CONTACT_CREATE_EXAMPLE, phone: recipient(i) } });
    const first = await call(t, "GET", "/api/v1/contacts?limit=1");
    expect(first.body).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
    const last = await call(t, "GET", `/api/v1/contacts?limit=1&cursor=${encodeURIComponent(first.body!.nextCursor as string)}`);
    expect(last.body).toMatchObject({ hasMore: false, nextCursor: null });
  });
});

describe("GET /api/v1/account", () => {
  it("tells the wallet to a key whose role may see billing, and not to a viewer's or an agent's", async () => {
    const t = await tenant("Wallet Sacco");
    await rawQuery(`update wallets set balance_cents = 123456 where organization_id = $1`, [t.organizationId]);
    const owner = await call(t, "GET", "/api/v1/account");
    expect(owner.body!.wallet).toMatchObject({ balanceCents: 123456, currency: "KES" });
    for (const role of ["viewer", "agent"]) {
      await rawQuery(`update users set org_role = $2 where id = $1`, [t.userId, role]);
      const narrowed = await call(t, "GET", "/api/v1/account");
      expect(narrowed.status).toBe(200);
      expect(narrowed.body, role).not.toHaveProperty("wallet");
      expect(JSON.stringify(narrowed.body)).not.toContain("123456");
      expect(narrowed.body).toMatchObject({ organization: { id: t.organizationId }, usage: expect.any(Object) });
    }
  });
});

describe("/api/admin/queue", () => {
  it("answers a member who is not an administrator as its GET does (404), whatever the method or body", async () => {
    const account = await createVerifiedUser({ businessName: "Not Admin Sacco" });
    const cookie = await signedInCookie(account.email, account.password);
    const origin = env().APP_URL;
    const get = await appFetch(new Request(`${origin}/api/admin/queue`, { headers: { cookie } }));
    expect(get.status).toBe(404);
    for (const method of ["POST", "PUT", "PATCH", "DELETE"])
      for (const [type, body] of [
        ["application/json", "{}"],
        ["text/plain", "hello"],
        ["application/x-www-form-urlencoded", "a=1"],
      ]) {
        const answered = await appFetch(
          new Request(`${origin}/api/admin/queue`, { method, headers: { cookie, origin, "Content-Type": type! }, body }),
        );
        expect(answered.status, `${method} ${type}`).toBe(get.status);
      }
  });
});
