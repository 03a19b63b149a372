import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { messages, webhookEndpoints } from "~/.server/infrastructure/db/schema";
import { handleApiV1 } from "~/.server/adapters/api-v1/handle";
import { ENDPOINTS, errorCodesOf, type Endpoint } from "~/.server/adapters/api-v1/endpoints";
import { ERROR_CATALOGUE, ERROR_CODES, errorCatalogue, type ErrorCode } from "~/.server/adapters/api-v1/errors";
import { documentedErrorCodes, openApiDocument } from "~/.server/adapters/api-v1/openapi";
import { can } from "~/.server/domains/auth/permissions";
import { enqueueMessageEvents } from "~/.server/domains/webhooks-out/events";
import { encryptSecret } from "~/.server/infrastructure/security/crypto";
import * as keyApi from "~/routes/api/developer.api-key";
import * as developersPage from "~/routes/app/developers";
import * as endpointPage from "~/routes/app/developer-endpoint";
import * as errorsPage from "~/routes/app/developer-errors";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";

// Decision 052: one catalogue of the public API's errors. The catalogue is published whole, each
// operation lists its codes, and every endpoint is walked through the errors every call, every id,
// every body and every role can meet: each answer is the documented code with the catalogue's
// status. (tests/support/setup.ts also holds every answer of every other API test to the same.)

const BASE = "http://jumbe.test";

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  const read = await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }));
  expect(read.status).toBe(200);
  return { ...account, cookie, organizationId: account.organization.id, key: read.data.key as string };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** The key now acts for a maker with this role (the owner made it; a demotion narrows it). */
const makerRole = (t: Tenant, role: "owner" | "admin" | "agent" | "viewer") =>
  rawQuery(`update users set org_role = $2 where id = $1`, [t.user.id, role]);

const pathOf = (endpoint: Endpoint, id: string) => endpoint.path.replace("{id}", encodeURIComponent(id));

async function call(
  endpoint: Endpoint,
  init: { key?: string; id?: string; query?: string; headers?: Record<string, string>; body?: BodyInit },
) {
  const headers = new Headers(init.headers);
  if (init.key !== undefined) headers.set("Authorization", `Bearer ${init.key}`);
  const response = await handleApiV1(
    new Request(`${BASE}${pathOf(endpoint, init.id ?? randomUUID())}${init.query ?? ""}`, {
      method: endpoint.method.toUpperCase(),
      headers,
      body: init.body,
    }),
  );
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as { code: string; message: string; permission?: string }) : undefined };
}

/** A request with the body the endpoint takes: its documented example (a file's bytes are checked after what each case provokes). */
const bodyOf = (endpoint: Endpoint): { headers: Record<string, string>; body?: BodyInit } =>
  endpoint.rawBody
    ? { headers: { "Content-Type": endpoint.rawBody.contentTypes[0]! }, body: new Uint8Array([1, 2, 3]) }
    : endpoint.multipart
      ? { headers: { "Content-Type": "multipart/form-data; boundary=x" }, body: "--x--\r\n" }
      : endpoint.body
        ? { headers: { "Content-Type": "application/json" }, body: JSON.stringify(endpoint.body.example) }
        : { headers: {} };

const name = (e: Endpoint) => `${e.method.toUpperCase()} ${e.path}`;

describe("the public API's one catalogue of errors", () => {
  it("gives each code one status, a meaning and what to do, and is published whole in the OpenAPI document", () => {
    const doc = openApiDocument();
    expect(doc["x-error-catalogue"]).toEqual(errorCatalogue());
    expect(doc["x-error-catalogue"].map((e) => e.code).sort()).toEqual([...ERROR_CODES].sort());
    for (const entry of errorCatalogue()) {
      expect(entry.meaning, entry.code).toMatch(/\S.*\.$/);
      expect(entry.action, entry.code).toMatch(/\S.*\.$/);
    }
    // The Error schema's code is the catalogue's list.
    expect((doc.components.schemas.Error as unknown as { properties: { code: { enum: string[] } } }).properties.code.enum.sort()).toEqual(
      [...ERROR_CODES].sort(),
    );
  });

  it("lists in each operation the codes its endpoint can answer, each under the catalogue's status", () => {
    const doc = openApiDocument();
    const used = new Set<string>();
    for (const endpoint of ENDPOINTS) {
      const listed = documentedErrorCodes(doc, endpoint.path, endpoint.method);
      expect(listed, name(endpoint)).toEqual(errorCodesOf(endpoint));
      const responses = (doc.paths[endpoint.path] as Record<string, { responses: Record<string, { "x-error-codes"?: ErrorCode[] }> }>)[
        endpoint.method
      ]!.responses;
      for (const [status, response] of Object.entries(responses))
        for (const code of response["x-error-codes"] ?? []) {
          expect(String(ERROR_CATALOGUE[code].status), `${name(endpoint)} ${code}`).toBe(status);
          used.add(code);
        }
      // Every code the endpoint's own words name is one it lists.
      for (const words of Object.values(endpoint.errors ?? {}))
        for (const code of ERROR_CODES.filter((c) => new RegExp(`\\b${c}\\b`).test(words)))
          expect(errorCodesOf(endpoint), `${name(endpoint)} names ${code}`).toContain(code);
    }
    // Every code but the router's own (a method a path does not take) is some endpoint's.
    expect(ERROR_CODES.filter((c) => !used.has(c))).toEqual(["method_not_allowed"]);
  });

  it("shows the catalogue on its page and each endpoint's codes on the endpoint's page", async () => {
    const t = await tenant("Catalogue Page Traders");
    const page = await run(errorsPage.loader, getRequest("/developers/errors", { cookie: t.cookie }));
    expect(page.status).toBe(200);
    expect(page.data.errors).toEqual(errorCatalogue());
    const tab = await run(developersPage.loader, getRequest("/developers", { cookie: t.cookie }));
    expect(tab.data.endpoints.map((e: { operationId: string }) => e.operationId)).toEqual(ENDPOINTS.map((e) => e.operationId));
    const send = await run(endpointPage.loader, getRequest("/developers/api/sendMessage", { cookie: t.cookie }), {
      params: { operation: "sendMessage" },
    });
    expect(send.data.endpoint.errors.map((row: { code: string }) => row.code)).toEqual(
      errorCodesOf(ENDPOINTS.find((e) => e.operationId === "sendMessage")!),
    );
    const { action: _action, ...first } = errorCatalogue().find((row) => row.code === send.data.endpoint.errors[0].code)!;
    expect(send.data.endpoint.errors[0]).toEqual(first);
    // An id the API does not have: not found, with nothing else said.
    const unknown = await run(endpointPage.loader, getRequest("/developers/api/launchRocket", { cookie: t.cookie }), {
      params: { operation: "launchRocket" },
    });
    expect(unknown.status).toBe(404);
  });

  it("walks every endpoint through the key, the role, the id and the body: each answer is a documented code", async () => {
    const t = await tenant("Catalogue Walk Sacco");
    const answered = new Map<string, Set<string>>();
    const expectAnswer = async (endpoint: Endpoint, got: Promise<Awaited<ReturnType<typeof call>>>, code: ErrorCode) => {
      const answer = await got;
      expect(answer, `${name(endpoint)} → ${code}`).toMatchObject({ status: ERROR_CATALOGUE[code].status, body: { code } });
      expect(errorCodesOf(endpoint), `${name(endpoint)} documents ${code}`).toContain(code);
      answered.set(name(endpoint), (answered.get(name(endpoint)) ?? new Set()).add(code));
      return answer.body!;
    };
    for (const endpoint of ENDPOINTS) {
      const body = bodyOf(endpoint);
      await expectAnswer(endpoint, call(endpoint, body), "missing_api_key");
      await expectAnswer(endpoint, call(endpoint, { ...body, key: `jmb_live_${"A".repeat(43)}` }), "invalid_api_key");
      // A query parameter no endpoint takes.
      await expectAnswer(endpoint, call(endpoint, { ...body, key: t.key, query: "?colour=blue" }), "invalid_request");
      if (endpoint.notFound) {
        // A malformed id and an unknown one: the resource's not-found, never "no endpoint".
        for (const id of ["not-a-uuid", "42", randomUUID()]) {
          const refused = await expectAnswer(endpoint, call(endpoint, { ...body, key: t.key, id }), "not_found");
          expect(refused.message, `${name(endpoint)} ${id}`).toMatch(/^No (\w+ )+\S*/);
          expect(refused.message, `${name(endpoint)} ${id}`).not.toContain("No endpoint");
        }
      }
      if (endpoint.body || endpoint.rawBody || endpoint.multipart) {
        const over = (endpoint.rawBody?.maxBytes ?? endpoint.multipart?.maxBytes ?? 64 * 1024) + 1;
        await expectAnswer(
          endpoint,
          call(endpoint, { ...body, key: t.key, headers: { ...body.headers, "Content-Length": String(over) } }),
          "payload_too_large",
        );
      }
      if (endpoint.rawBody || endpoint.multipart)
        await expectAnswer(
          endpoint,
          call(endpoint, { key: t.key, headers: { "Content-Type": "text/plain" }, body: "hello" }),
          "unsupported_media_type",
        );
    }

    // A key whose maker is now a viewer: refused what a viewer may not do, with the permission named.
    await makerRole(t, "viewer");
    for (const endpoint of ENDPOINTS.filter((e) => !can("viewer", e.permission))) {
      const refused = await expectAnswer(endpoint, call(endpoint, { ...bodyOf(endpoint), key: t.key }), "permission_denied");
      expect(refused.permission).toBe(endpoint.permission);
      expect(refused.message).toContain(`(viewer), which does not include the permission ${endpoint.permission}`);
    }
    await makerRole(t, "owner");

    // A suspended organisation's key: its own answer, with what to do.
    await rawQuery(`update organizations set status = 'suspended' where id = $1`, [t.organizationId]);
    for (const endpoint of ENDPOINTS) {
      const refused = await expectAnswer(endpoint, call(endpoint, { ...bodyOf(endpoint), key: t.key }), "account_suspended");
      expect(refused.message).toContain("Contact Jumbe support");
    }

    // Every endpoint met the errors every call can meet.
    for (const endpoint of ENDPOINTS)
      expect([...answered.get(name(endpoint))!], name(endpoint)).toEqual(
        expect.arrayContaining(["missing_api_key", "invalid_api_key", "invalid_request", "account_suspended"]),
      );
  });
});

describe("what a key may do", () => {
  it("acts with its maker's role as it is now: an agent's key sends and keeps contacts but cannot make templates", async () => {
    const t = await tenant("Agent Key Traders");
    const createTemplate = ENDPOINTS.find((e) => e.operationId === "createTemplate")!;
    const saveContact = ENDPOINTS.find((e) => e.operationId === "saveContact")!;
    await makerRole(t, "agent");
    const before = await rawQuery<{ n: number }>(`select count(*)::int as n from message_templates where organization_id = $1`, [
      t.organizationId,
    ]);
    const refused = await call(createTemplate, {
      key: t.key,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "order_update", language: "en", category: "UTILITY", components: [{ type: "BODY", text: "Hi" }] }),
    });
    expect(refused).toMatchObject({
      status: 403,
      body: {
        code: "permission_denied",
        permission: "templates:manage",
        message:
          "This API key acts with the role of the member who made it (agent), which does not include the permission templates:manage. Ask an owner or admin to regenerate the key on the Developers page, or to give that member a role with this permission.",
      },
    });
    const after = await rawQuery<{ n: number }>(`select count(*)::int as n from message_templates where organization_id = $1`, [
      t.organizationId,
    ]);
    expect(after).toEqual(before);
    const saved = await call(saveContact, {
      key: t.key,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ phone: "+254712000301", name: "Wanjiru" }),
    });
    expect(saved.status).toBe(200);

    // Back to admin: the same key may make templates again (refused further on only by what is missing).
    await makerRole(t, "admin");
    expect((await call(createTemplate, { key: t.key, headers: { "Content-Type": "application/json" }, body: "{}" })).body?.code).toBe(
      "invalid_request",
    );
  });

  it("acts as an admin when its maker has left the organisation", async () => {
    const t = await tenant("Maker Left Traders");
    await rawQuery(`update api_keys set created_by = null where organization_id = $1`, [t.organizationId]);
    const account = ENDPOINTS.find((e) => e.operationId === "deleteTemplate")!;
    expect((await call(account, { key: t.key })).body?.code).toBe("not_found");
  });

  it("answers a suspended organisation's key 403 account_suspended, and a wrong key 401 invalid_api_key", async () => {
    const t = await tenant("Suspended Key Traders");
    const getAccount = ENDPOINTS.find((e) => e.operationId === "getAccount")!;
    expect((await call(getAccount, { key: t.key })).status).toBe(200);
    await rawQuery(`update organizations set status = 'suspended' where id = $1`, [t.organizationId]);
    expect(await call(getAccount, { key: t.key })).toMatchObject({
      status: 403,
      body: {
        code: "account_suspended",
        message:
          "Your organisation is suspended, so its API key does nothing for now. Contact Jumbe support to have it reinstated; the same key works again once it is.",
      },
    });
    expect((await call(getAccount, { key: t.key.replace(/.$/, (c) => (c === "A" ? "B" : "A")) })).body?.code).toBe("invalid_api_key");
    await rawQuery(`update organizations set status = 'active' where id = $1`, [t.organizationId]);
    expect((await call(getAccount, { key: t.key })).status).toBe(200);
  });
});

describe("a failed message's pricing", () => {
  it("has one shape in the API and in its webhook: null until Meta reports pricing, then the same object", async () => {
    const t = await tenant("Pricing Shape Traders");
    await db()
      .insert(webhookEndpoints)
      .values({
        organizationId: t.organizationId,
        url: "https://hooks.example.co.ke/jumbe",
        events: ["message.failed"],
        secretEncrypted: encryptSecret("whsec_test"),
      });
    // A template message carries its category from when it was queued; Meta never reported pricing.
    const [failed] = await db()
      .insert(messages)
      .values({
        organizationId: t.organizationId,
        direction: "outbound",
        status: "failed",
        body: "Your statement is ready.",
        phoneNumberId: "1065",
        recipientPhone: "+254712000401",
        messageType: "template",
        pricingCategory: "utility",
        errorCode: 131026,
        errorTitle: "Message undeliverable",
        failedAt: new Date(),
      })
      .returning();
    const getMessage = ENDPOINTS.find((e) => e.operationId === "getMessage")!;
    const pricingNow = async () => {
      await rawQuery(`delete from webhook_deliveries where organization_id = $1`, [t.organizationId]);
      await enqueueMessageEvents(db(), [{ organizationId: t.organizationId, type: "message.failed", messageId: failed!.id }]);
      const [delivery] = await rawQuery<{ payload: { data: { pricing: unknown } } }>(
        `select payload from webhook_deliveries where organization_id = $1`,
        [t.organizationId],
      );
      const api = await handleApiV1(
        new Request(`${BASE}${pathOf(getMessage, failed!.id)}`, { headers: { Authorization: `Bearer ${t.key}` } }),
      );
      return { api: ((await api.json()) as { pricing: unknown }).pricing, webhook: delivery!.payload.data.pricing };
    };
    expect(await pricingNow()).toEqual({ api: null, webhook: null });
    await rawQuery(`update messages set pricing_type = 'regular', billable = false where id = $1`, [failed!.id]);
    const reported = { category: "utility", type: "regular", billable: false };
    expect(await pricingNow()).toEqual({ api: reported, webhook: reported });
  });
});

describe("a file of the wrong type", () => {
  it("answers POST /api/v1/template-samples 415 unsupported_media_type, as documented, and stores nothing", async () => {
    const t = await tenant("Sample Type Traders");
    const upload = ENDPOINTS.find((e) => e.operationId === "uploadTemplateSample")!;
    const samples = async () =>
      (await rawQuery<{ n: number }>(`select count(*)::int as n from template_media where organization_id = $1`, [t.organizationId]))[0]!.n;
    // A PDF's bytes declared as a PNG, and a type the endpoint does not take.
    const pdf = Buffer.from("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n");
    for (const [contentType, bytes] of [
      ["image/png", pdf],
      ["text/plain", Buffer.from("hello")],
    ] as const) {
      const refused = await call(upload, { key: t.key, headers: { "Content-Type": contentType }, body: new Uint8Array(bytes) });
      expect(refused, contentType).toMatchObject({ status: 415, body: { code: "unsupported_media_type" } });
    }
    expect(await samples()).toBe(0);
  });
});
