import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Server } from "node:http";
import { Readable } from "node:stream";
import express from "express";
import { and, eq, sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { activityLogs, messageTemplates } from "~/.server/infrastructure/db/schema";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { handleApiV1, API_BODY_LIMIT } from "~/.server/adapters/api-v1/handle";
import { openApiDocument } from "~/.server/adapters/api-v1/openapi";
import { TEMPLATE_CREATE_EXAMPLE, TemplateCreate } from "~/.server/adapters/api-v1/schemas";
import { bodyLimitFor, limitRequestBodies } from "~/.server/infrastructure/http/body-limit";
import { createTemplate, TEMPLATE_MESSAGES } from "~/.server/domains/templates/manage";
import type { TemplateInput } from "~/lib/templates";
import * as keyApi from "~/routes/api/developer.api-key";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";
import { startGraphSandbox } from "../support/sandbox-waba";
import { startApiV1Server } from "../support/api-v1-server";

// The real /api/v1 handler on a real socket, as developer-api.test.ts runs it.
let apiServer: Awaited<ReturnType<typeof startApiV1Server>>;
let base = "";
let meta: Awaited<ReturnType<typeof startGraphSandbox>>;

beforeAll(async () => {
  meta = await startGraphSandbox();
  apiServer = await startApiV1Server();
  base = apiServer.base;
});
afterAll(async () => {
  await apiServer.close();
  await meta.close();
});
beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: base, GRAPH_API_BASE_URL: meta.graphBase, GRAPH_API_TIMEOUT_MS: "5000" }));
  meta.sandbox.reset();
});

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  const read = await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }));
  expect(read.status).toBe(200);
  return { ...account, key: read.data.key as string, organizationId: account.organization.id };
}

type Tenant = Awaited<ReturnType<typeof tenant>>;

function api(t: Tenant | undefined, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      ...(t ? { Authorization: `Bearer ${t.key}` } : {}),
      ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function answer(response: Response) {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const call = async (t: Tenant | undefined, method: string, path: string, body?: unknown) => answer(await api(t, method, path, body));

/** A draft made the way the Templates page makes one (no WhatsApp account needed). */
async function draft(t: Tenant, name: string, over: Partial<TemplateInput> = {}) {
  const result = await createTemplate(
    { organizationId: t.organizationId, userId: null },
    {
      name,
      category: "UTILITY",
      language: "en",
      headerFormat: "NONE",
      body: "Hello {{1}}, your order is ready for collection.",
      bodyExamples: ["Amina"],
      buttons: [],
      ...over,
    },
    { submit: false },
  );
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.template;
}

const templatesOf = (organizationId: string) =>
  db().select().from(messageTemplates).where(eq(messageTemplates.organizationId, organizationId));

/** A valid create body with some of it replaced. */
const body = (over: Record<string, unknown> = {}) => ({ ...structuredClone(TEMPLATE_CREATE_EXAMPLE), ...over });
const utility = (components: unknown[], over: Record<string, unknown> = {}) => ({
  name: "order_update",
  language: "en",
  category: "UTILITY",
  components,
  ...over,
});

describe("GET /api/v1/templates", () => {
  it("lists the tenant's templates newest first, filtered, a page at a time without repeats or gaps", async () => {
    const a = await tenant("Alpha Sacco");
    const b = await tenant("Beta Traders");
    const made: string[] = [];
    for (let i = 0; i < 9; i++) made.push((await draft(a, `notice_${i}`, { language: i % 3 === 0 ? "sw" : "en" })).id);
    made.push((await draft(a, "order_ready")).id);
    made.push((await draft(a, "order_shipped", { language: "fr" })).id);
    await draft(b, "order_elsewhere");
    // Five share one creation time to the microsecond (one statement), so pages must break ties by id.
    await db().execute(
      sql`update message_templates set created_at = '2026-01-05 10:00:00.123456+00' where id in (${sql.join(
        made.slice(2, 7).map((id) => sql`${id}`),
        sql`, `,
      )})`,
    );
    await db().execute(sql`update message_templates set status = 'approved' where id in (${made[1]}, ${made[9]})`);

    const all = await call(a, "GET", "/api/v1/templates?limit=100");
    expect(all.status).toBe(200);
    expect(all.body.nextCursor).toBeNull();
    expect(all.body.data).toHaveLength(11);
    expect(new Set(all.body.data.map((t: { id: string }) => t.id))).toEqual(new Set(made));

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { status: number; body: { data: { id: string }[]; nextCursor: string | null } } = await call(
        a,
        "GET",
        `/api/v1/templates?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((t) => t.id));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor && pages < 20);
    expect(pages).toBe(6);
    expect(seen).toEqual(all.body.data.map((t: { id: string }) => t.id));
    expect(new Set(seen).size).toBe(11);

    const approved = await call(a, "GET", "/api/v1/templates?status=approved");
    expect(approved.body.data.map((t: { name: string }) => t.name).sort()).toEqual(["notice_1", "order_ready"]);
    const swahili = await call(a, "GET", "/api/v1/templates?language=sw");
    expect(swahili.body.data.map((t: { name: string }) => t.name).sort()).toEqual(["notice_0", "notice_3", "notice_6"]);
    const orders = await call(a, "GET", "/api/v1/templates?name=order");
    expect(orders.body.data.map((t: { name: string }) => t.name).sort()).toEqual(["order_ready", "order_shipped"]);
    const both = await call(a, "GET", "/api/v1/templates?name=order&language=fr&status=draft");
    expect(both.body.data.map((t: { name: string }) => t.name)).toEqual(["order_shipped"]);
    expect((await call(b, "GET", "/api/v1/templates")).body.data.map((t: { name: string }) => t.name)).toEqual(["order_elsewhere"]);
  });

  it("refuses a query it cannot take with 400 invalid_request naming the parameter", async () => {
    const t = await tenant("Query Ltd");
    for (const [query, where] of [
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=ten", "limit"],
      ["status=live", "status"],
      ["language=de", "language"],
      ["cursor=not-a-cursor", "cursor"],
      [`cursor=${Buffer.from("yesterday|x").toString("base64url")}`, "cursor"],
    ]) {
      const refused = await call(t, "GET", `/api/v1/templates?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body).toMatchObject({ code: "invalid_request", message: expect.stringMatching(new RegExp(`^${where}: `)) });
    }
    expect((await call(t, "GET", `/api/v1/templates?organizationId=${t.organizationId}`)).body).toMatchObject({
      code: "invalid_request",
      message: "unknown parameter organizationId",
    });
  });
});

describe("GET and DELETE /api/v1/templates/{id}", () => {
  it("gets one template in the API's shape", async () => {
    const t = await tenant("Shape Ltd");
    const made = await draft(t, "pickup_notice");
    const got = await call(t, "GET", `/api/v1/templates/${made.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id: made.id,
      name: "pickup_notice",
      language: "en",
      category: "UTILITY",
      status: "draft",
      rejectionReason: null,
      platformRejection: null,
      components: [{ type: "BODY", text: "Hello {{1}}, your order is ready for collection.", example: { body_text: [["Amina"]] } }],
      wabaId: null,
      createdAt: made.createdAt.toISOString(),
      submittedAt: null,
      updatedAt: made.updatedAt.toISOString(),
    });
  });

  it("answers 404 not_found for another tenant's id, an unknown id and a malformed one, and deletes nothing", async () => {
    const owner = await tenant("Owner Ltd");
    const other = await tenant("Other Ltd");
    const theirs = await draft(owner, "private_notice");
    for (const id of [
      theirs.id,
      "7d444840-9dc0-11d1-b245-5ffdce74fad2",
      "not-a-uuid",
      "1",
      `${theirs.id}x`,
      "%E0%A4%A",
      theirs.id.toUpperCase() + "%00",
    ]) {
      for (const method of ["GET", "DELETE"]) {
        const refused = await call(other, method, `/api/v1/templates/${id}`);
        expect(refused.status, `${method} ${id}`).toBe(404);
        expect(refused.body.code).toBe("not_found");
      }
    }
    expect(await templatesOf(owner.organizationId)).toHaveLength(1);
    expect((await call(owner, "GET", `/api/v1/templates/${theirs.id}`)).status).toBe(200);
    // A path that is not a template's: /templates/{id}/more or an empty id.
    expect((await call(owner, "GET", `/api/v1/templates/${theirs.id}/more`)).status).toBe(404);
    expect((await call(owner, "GET", `/api/v1/templates/`)).status).toBe(404);
  });

  it("deletes a draft with 204 and no body; a second delete is 404", async () => {
    const t = await tenant("Tidy Ltd");
    const made = await draft(t, "old_notice");
    const deleted = await api(t, "DELETE", `/api/v1/templates/${made.id}`);
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect(await templatesOf(t.organizationId)).toHaveLength(0);
    expect((await call(t, "DELETE", `/api/v1/templates/${made.id}`)).status).toBe(404);
  });
});

describe("POST /api/v1/templates: Meta's rules, as the Templates page checks them", () => {
  const refusals: [string, unknown, string][] = [
    ["name pattern", body({ name: "Order Update" }), "name: Use lowercase letters, numbers and underscores only, e.g. order_update."],
    [
      "body starting with a variable",
      utility([{ type: "BODY", text: "{{1}} your order is ready.", example: { body_text: [["Amina"]] } }]),
      "components.BODY: The text cannot start with a variable: Meta rejects it. Put some words before {{1}}.",
    ],
    [
      "adjacent variables",
      utility([{ type: "BODY", text: "Hello {{1}} {{2}}, your order is ready.", example: { body_text: [["Amina", "Hassan"]] } }]),
      "components.BODY: Two variables are next to each other: Meta rejects it. Put words between them.",
    ],
    [
      "a missing example",
      utility([{ type: "BODY", text: "Hello {{1}}, your order {{2}} is ready.", example: { body_text: [["Amina"]] } }]),
      "components.BODY.example.body_text[0][1]: Add an example for {{2}}: Meta reviews templates with their examples.",
    ],
    [
      "no example at all",
      utility([{ type: "BODY", text: "Hello {{1}}, your order is ready." }]),
      "components.BODY.example.body_text[0][0]: Add an example for {{1}}: Meta reviews templates with their examples.",
    ],
    [
      "too many quick replies",
      utility([
        { type: "BODY", text: "Did your order arrive?" },
        { type: "BUTTONS", buttons: Array.from({ length: 11 }, (_, i) => ({ type: "QUICK_REPLY", text: `Answer ${i}` })) },
      ]),
      "components.BUTTONS: At most 10 buttons.",
    ],
    [
      "a URL with a variable not at its end",
      utility([
        { type: "BODY", text: "Your order is on its way." },
        { type: "BUTTONS", buttons: [{ type: "URL", text: "Track", url: "https://example.co.ke/{{1}}/track", example: ["1042"] }] },
      ]),
      "components.BUTTONS.buttons[0].url: A website address can have one variable, {{1}}, at its end.",
    ],
    [
      "a copy code button outside Marketing, and a header variable without its example",
      utility([
        { type: "HEADER", format: "TEXT", text: "Order {{1}}" },
        { type: "BODY", text: "Your order is on its way." },
        { type: "BUTTONS", buttons: [{ type: "COPY_CODE", example: "SAVE10" }] },
      ]),
      "components.HEADER.example.header_text[0]: Add an example for {{1}} in the header: Meta reviews templates with their examples.; components.BUTTONS: Copy code buttons are for Marketing templates only.",
    ],
  ];

  it.each(refusals)("refuses %s with 400 invalid_request naming the field, saving nothing", async (_, payload, message) => {
    const t = await tenant("Rules Ltd");
    const refused = await call(t, "POST", "/api/v1/templates", payload);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: "invalid_request", message });
    expect(await templatesOf(t.organizationId)).toHaveLength(0);
  });

  it("refuses shapes it cannot take with 400, never 500", async () => {
    const t = await tenant("Shapes Ltd");
    const cases: [unknown, string | RegExp][] = [
      [body({ name: 5 }), /^name: Invalid input: expected string, received number$/],
      [body({ language: "de" }), /^language: Invalid option/],
      [body({ category: "PROMOTION" }), /^category: Invalid option/],
      [body({ components: "BODY" }), /^components: Invalid input: expected array/],
      [body({ components: [] }), /^components: Too small/],
      [body({ components: Array.from({ length: 2000 }, () => ({ type: "BODY", text: "x" })) }), /^components: Too big/],
      [
        utility([{ type: "CAROUSEL", cards: [] }]),
        "components.CAROUSEL.type: Unknown component type: use HEADER, BODY, FOOTER or BUTTONS.",
      ],
      [utility([{ text: "Hello" }]), "components[0].type: Unknown component type: use HEADER, BODY, FOOTER or BUTTONS."],
      [utility(["BODY"]), /^components\[0\]: /],
      [
        utility([
          { type: "HEADER", format: "IMAGE", example: { header_handle: ["h"] } },
          { type: "BODY", text: "Hi there." },
        ]),
        "components.HEADER.example: Jumbe uploads the sample to Meta itself: give the IMAGE header's sampleId (POST /api/v1/template-samples), not example.header_handle.",
      ],
      [
        utility([
          { type: "BODY", text: "Hi there." },
          { type: "BODY", text: "Again." },
        ]),
        "components.BODY: Only one BODY component.",
      ],
      [utility([{ type: "BODY", text: 12 }]), "components.BODY.text: Invalid input: expected string, received number"],
      [utility([{ type: "BODY", text: "Hi there.", colour: "green" }]), "components.BODY: unknown field colour"],
      [
        utility([
          { type: "BODY", text: "Hi there." },
          { type: "BUTTONS", buttons: Array.from({ length: 1500 }, () => ({ type: "QUICK_REPLY", text: "x" })) },
        ]),
        /^components\.BUTTONS\.buttons: Too big/,
      ],
      [
        utility([
          { type: "BODY", text: "Hi there." },
          { type: "BUTTONS", buttons: [{ type: "FLOW", text: "Go" }] },
        ]),
        /^components\.BUTTONS\.buttons\[0\]\.type: Unknown button type/,
      ],
      [
        utility([
          { type: "BODY", text: "Hi there." },
          { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE", text: "Copy" }] },
        ]),
        "components.BUTTONS.buttons[0].type: OTP buttons are for AUTHENTICATION templates only.",
      ],
      [
        { name: "login_code", language: "en", category: "AUTHENTICATION", components: [{ type: "BODY", text: "Your code is {{1}}." }] },
        "components.BODY.text: Authentication templates have no body text of yours: Meta writes it.; components: Authentication templates need a BUTTONS component with one OTP button.",
      ],
      [body({ organizationId: t.organizationId }), "unknown field organizationId"],
      [
        utility([{ type: "BODY", text: "Hello\u0000 there." }]),
        "components.BODY.text: Text cannot contain NUL characters or half of a surrogate pair.",
      ],
      [
        utility([{ type: "BODY", text: "Hello \ud800 there." }]),
        "components.BODY.text: Text cannot contain NUL characters or half of a surrogate pair.",
      ],
    ];
    for (const [payload, message] of cases) {
      const refused = await call(t, "POST", "/api/v1/templates", payload);
      expect(refused.status, JSON.stringify(payload).slice(0, 200)).toBe(400);
      expect(refused.body.code).toBe("invalid_request");
      if (typeof message === "string") expect(refused.body.message).toBe(message);
      else expect(refused.body.message).toMatch(message);
    }
    expect(await templatesOf(t.organizationId)).toHaveLength(0);
  });

  it("refuses bodies that are not a JSON object with 400, and bodies over 64 KB with 413", async () => {
    const t = await tenant("Bodies Ltd");
    const expectations: [string | undefined, number, string][] = [
      ["{not json", 400, "The request body is not valid JSON."],
      ['{"name": "x"', 400, "The request body is not valid JSON."],
      ["", 400, "Send the request as a JSON object in the body (Content-Type: application/json)."],
      [undefined, 400, "Send the request as a JSON object in the body (Content-Type: application/json)."],
      ["[]", 400, "The request body must be a JSON object (see the API's description for its fields)."],
      [
        JSON.stringify([TEMPLATE_CREATE_EXAMPLE]),
        400,
        "The request body must be a JSON object (see the API's description for its fields).",
      ],
      ["null", 400, "The request body must be a JSON object (see the API's description for its fields)."],
      ['"order_update"', 400, "The request body must be a JSON object (see the API's description for its fields)."],
      ["[".repeat(30_000) + "]".repeat(30_000), 400, "The request body must be a JSON object (see the API's description for its fields)."],
      [JSON.stringify(body({ name: "x".repeat(70 * 1024) })), 413, "The request body is over 64 KB."],
    ];
    for (const [raw, status, message] of expectations) {
      const response = await answer(
        await api(t, "POST", "/api/v1/templates", raw, raw === undefined ? {} : { "Content-Type": "application/json" }),
      );
      expect(response.status, String(raw).slice(0, 40)).toBe(status);
      expect(response.body).toMatchObject({ code: status === 413 ? "payload_too_large" : "invalid_request", message });
    }
    // A body that declares no length is counted as it is read.
    const big = JSON.stringify(body({ name: "y".repeat(70 * 1024) }));
    const streamed = await handleApiV1(
      new Request(`${base}/api/v1/templates`, {
        method: "POST",
        headers: { Authorization: `Bearer ${t.key}`, "Content-Type": "application/json" },
        body: Readable.toWeb(Readable.from([Buffer.from(big.slice(0, 40_000)), Buffer.from(big.slice(40_000))])) as ReadableStream,
        duplex: "half",
      } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ code: "payload_too_large", message: "The request body is over 64 KB." });
    expect(await templatesOf(t.organizationId)).toHaveLength(0);
    const logged = await db()
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.organizationId, t.organizationId), eq(activityLogs.action, "API call failed")));
    // Every refusal after the key was read is measured and logged (the declared 413 is refused before).
    expect(logged).toHaveLength(expectations.length);
  });

  it("is bounded in front by Express too: 64 KB for /api/v1, declared or chunked", async () => {
    expect(bodyLimitFor("/api/v1/templates")).toBe(API_BODY_LIMIT);
    const t = await tenant("Express Ltd");
    // As in server.ts: the body limit, then the request handed on as React Router's adapter does.
    const app = express();
    app.use(limitRequestBodies());
    app.all("/{*splat}", async (req, res) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const response = await handleApiV1(
        new Request(`${base}${req.url}`, {
          method: req.method,
          headers,
          body: req.method === "GET" ? undefined : (Readable.toWeb(req) as ReadableStream),
          duplex: "half",
        } as RequestInit),
      );
      if (res.headersSent) return;
      res
        .status(response.status)
        .set(Object.fromEntries(response.headers))
        .send(Buffer.from(await response.arrayBuffer()));
    });
    const front = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    const url = `http://127.0.0.1:${(front.address() as { port: number }).port}/api/v1/templates`;
    try {
      const headers = { Authorization: `Bearer ${t.key}`, "Content-Type": "application/json" };
      const declared = await fetch(url, { method: "POST", headers, body: JSON.stringify(body({ name: "z".repeat(70 * 1024) })) });
      expect(declared.status).toBe(413);
      const big = Buffer.from(JSON.stringify(body({ name: "w".repeat(70 * 1024) })));
      const chunked = await fetch(url, {
        method: "POST",
        headers,
        body: Readable.toWeb(Readable.from([big.subarray(0, 30_000), big.subarray(30_000)])) as ReadableStream,
        duplex: "half",
      } as RequestInit);
      expect(chunked.status).toBe(413);
      // Under the limit the API itself answers (no account: 409).
      const fine = await fetch(url, { method: "POST", headers, body: JSON.stringify(body()) });
      expect(fine.status).toBe(409);
    } finally {
      front.closeAllConnections();
      await new Promise((resolve) => front.close(resolve));
    }
  });

  it("answers 409 no_whatsapp_account when no WhatsApp Business account is connected, saving nothing", async () => {
    const t = await tenant("Unconnected Ltd");
    const refused = await call(t, "POST", "/api/v1/templates", body());
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: "no_whatsapp_account",
      message: "Connect a WhatsApp Business account before submitting templates to Meta (WhatsApp Setup).",
    });
    expect(TEMPLATE_MESSAGES.noAccount.startsWith(refused.body.message)).toBe(true);
    expect((await call(t, "POST", "/api/v1/templates", body({ wabaId: "123" }))).status).toBe(409);
    expect(await templatesOf(t.organizationId)).toHaveLength(0);
  });

  it("answers 405 with Allow for a method a path does not take", async () => {
    const t = await tenant("Methods Ltd");
    const made = await draft(t, "method_notice");
    for (const [method, path, allow] of [
      ["PUT", "/api/v1/templates", "GET, POST"],
      ["DELETE", "/api/v1/templates", "GET, POST"],
      ["PATCH", `/api/v1/templates/${made.id}`, "GET, DELETE"],
      ["POST", `/api/v1/templates/${made.id}`, "GET, DELETE"],
      ["POST", "/api/v1/account", "GET"],
    ]) {
      const refused = await call(t, method!, path!);
      expect(refused.status, `${method} ${path}`).toBe(405);
      expect(refused.headers.get("allow")).toBe(allow);
      expect(refused.body.code).toBe("method_not_allowed");
    }
    expect(await templatesOf(t.organizationId)).toHaveLength(1);
  });
});

describe("POST and DELETE at Meta (the sandbox)", () => {
  it("creates and submits a template: 201, pending, stored at Meta; the same name again is 409 template_exists", async () => {
    const t = await tenant("Submit Ltd");
    const { wabaId } = await meta.connect(t.organizationId);
    const created = await call(t, "POST", "/api/v1/templates", body());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "order_update",
      language: "en",
      category: "UTILITY",
      status: "pending",
      rejectionReason: null,
      wabaId,
      submittedAt: expect.any(String),
      components: TEMPLATE_CREATE_EXAMPLE.components,
    });
    const atMeta = meta.sandbox.templates(wabaId);
    expect(atMeta.map((m) => [m.name, m.language, m.status])).toEqual([["order_update", "en", "PENDING"]]);
    expect((await call(t, "GET", `/api/v1/templates/${created.body.id}`)).body).toEqual(created.body);

    const again = await call(t, "POST", "/api/v1/templates", body());
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "template_exists", message: expect.stringContaining("order_update") });
    // Another language of the same name is another template.
    expect((await call(t, "POST", "/api/v1/templates", body({ language: "sw" }))).status).toBe(201);
  });

  it("creates an authentication template from Meta's OTP shape", async () => {
    const t = await tenant("Codes Ltd");
    const { wabaId } = await meta.connect(t.organizationId);
    const created = await call(t, "POST", "/api/v1/templates", {
      name: "login_code",
      language: "en",
      category: "AUTHENTICATION",
      components: [
        { type: "BODY", add_security_recommendation: true },
        { type: "FOOTER", code_expiration_minutes: 10 },
        { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE", text: "Copy code" }] },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ category: "AUTHENTICATION", status: "pending", wabaId });
    const tooLong = await call(t, "POST", "/api/v1/templates", {
      name: "login_code_2",
      language: "en",
      category: "AUTHENTICATION",
      components: [
        { type: "FOOTER", code_expiration_minutes: 600 },
        { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE", text: "Copy code" }] },
      ],
    });
    expect(tooLong.body).toMatchObject({
      code: "invalid_request",
      message: "components.FOOTER.code_expiration_minutes: Codes expire after 1 to 90 minutes.",
    });
  });

  it("chooses among several accounts by wabaId; without it, or with another's, 400 names wabaId", async () => {
    const t = await tenant("Two Numbers Ltd");
    const first = await meta.connect(t.organizationId, "First Biashara");
    const second = await meta.connect(t.organizationId, "Second Biashara");
    const unchosen = await call(t, "POST", "/api/v1/templates", body());
    expect(unchosen.status).toBe(400);
    expect(unchosen.body.message).toBe(`wabaId: ${TEMPLATE_MESSAGES.chooseAccount} Send wabaId, one of ${first.wabaId}, ${second.wabaId}.`);
    const unknown = await call(t, "POST", "/api/v1/templates", body({ wabaId: "999999" }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/^wabaId: /);
    const chosen = await call(t, "POST", "/api/v1/templates", body({ wabaId: second.wabaId }));
    expect(chosen.status).toBe(201);
    expect(chosen.body.wabaId).toBe(second.wabaId);
    expect(meta.sandbox.templates(second.wabaId)).toHaveLength(1);
    expect(meta.sandbox.templates(first.wabaId)).toHaveLength(0);
  });

  it("answers 502 meta_error with Meta's words when Meta refuses; the template stays as a draft", async () => {
    const t = await tenant("Refused Ltd");
    await meta.connect(t.organizationId);
    meta.sandbox.injectFault({
      step: "template.create",
      error: { status: 400, code: 100, message: "(#100) Invalid parameter: the sandbox says no" },
    });
    const refused = await call(t, "POST", "/api/v1/templates", body());
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe("meta_error");
    expect(refused.body.message).toContain("the sandbox says no");
    const [kept] = await templatesOf(t.organizationId);
    expect(kept).toMatchObject({ name: "order_update", status: "draft", metaTemplateId: null });
    expect(refused.body.message).toContain(`draft (id ${kept!.id})`);
  });

  it("deletes here and at Meta with 204; when Meta refuses, 502 meta_error and the template is kept", async () => {
    const t = await tenant("Delete Ltd");
    const other = await tenant("Bystander Ltd");
    const { wabaId } = await meta.connect(t.organizationId);
    const created = (await call(t, "POST", "/api/v1/templates", body())).body as { id: string };
    expect(meta.sandbox.templates(wabaId)).toHaveLength(1);
    expect((await call(other, "DELETE", `/api/v1/templates/${created.id}`)).status).toBe(404);
    expect(meta.sandbox.templates(wabaId)).toHaveLength(1);

    meta.sandbox.injectFault({ step: "template.delete", error: { status: 400, code: 100, message: "(#100) The sandbox keeps it" } });
    const refused = await call(t, "DELETE", `/api/v1/templates/${created.id}`);
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ code: "meta_error", message: expect.stringContaining("The sandbox keeps it") });
    expect((await call(t, "GET", `/api/v1/templates/${created.id}`)).status).toBe(200);
    expect(meta.sandbox.templates(wabaId)).toHaveLength(1);

    const deleted = await api(t, "DELETE", `/api/v1/templates/${created.id}`);
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect(meta.sandbox.templates(wabaId)).toHaveLength(0);
    expect(await templatesOf(t.organizationId)).toHaveLength(0);
    expect((await call(t, "GET", `/api/v1/templates/${created.id}`)).status).toBe(404);
  });
});

describe("the OpenAPI document", () => {
  it("lists the template paths with their methods, parameters, body, statuses and errors", async () => {
    const doc = await (await fetch(`${base}/api/v1/openapi.json`)).json();
    expect(doc).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
    expect(Object.keys(doc.paths)).toEqual([
      "/api/v1/account",
      "/api/v1/partner",
      "/api/v1/analytics",
      "/api/v1/phone-numbers",
      "/api/v1/templates",
      "/api/v1/templates/{id}",
      "/api/v1/template-samples",
      "/api/v1/messages",
      "/api/v1/messages/{id}",
      "/api/v1/media",
      "/api/v1/media/{id}",
      "/api/v1/contacts",
      "/api/v1/contacts/{id}",
      "/api/v1/contacts/{id}/consent",
      "/api/v1/campaigns",
      "/api/v1/campaigns/{id}",
      "/api/v1/campaigns/{id}/pause",
      "/api/v1/campaigns/{id}/resume",
      "/api/v1/campaigns/{id}/cancel",
      "/api/v1/automations/rules",
      "/api/v1/automations/rules/{id}",
      "/api/v1/automations/settings",
      "/api/v1/automations/assistant",
      "/api/v1/automations/knowledge",
      "/api/v1/automations/knowledge/{id}",
      "/api/v1/automations/flows",
      "/api/v1/automations/flows/{id}",
      "/api/v1/automations/flows/{id}/publish",
      "/api/v1/payment-requests",
      "/api/v1/payment-requests/{id}",
      "/api/v1/payment-requests/{id}/cancel",
      "/api/v1/sms",
      "/api/v1/sms/{id}",
      "/api/v1/hooks",
      "/api/v1/hooks/{id}",
      "/api/v1/orders",
      "/api/v1/orders/{id}",
    ]);
    expect(Object.keys(doc.paths["/api/v1/templates"])).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/api/v1/templates/{id}"])).toEqual(["get", "delete"]);

    const list = doc.paths["/api/v1/templates"].get;
    expect(list.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([
      "query:status",
      "query:name",
      "query:language",
      "query:cursor",
      "query:limit",
    ]);
    expect(list.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/TemplateList" });

    const create = doc.paths["/api/v1/templates"].post;
    expect(create.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/TemplateCreate" });
    expect(TemplateCreate.safeParse(create.requestBody.content["application/json"].example).success).toBe(true);
    expect(Object.keys(create.responses).sort()).toEqual(["201", "400", "401", "403", "409", "413", "415", "429", "500", "502", "503"]);
    expect(create.responses["201"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Template" });

    const one = doc.paths["/api/v1/templates/{id}"];
    expect(one.get.parameters).toEqual([expect.objectContaining({ name: "id", in: "path", required: true, schema: { type: "string" } })]);
    expect(Object.keys(one.get.responses).sort()).toEqual(["200", "400", "401", "403", "404", "429", "500", "503"]);
    expect(Object.keys(one.delete.responses).sort()).toEqual(["204", "400", "401", "403", "404", "429", "500", "502", "503"]);
    expect(one.delete.responses["204"].content).toBeUndefined();

    const template = doc.components.schemas.Template;
    expect(template.required).toEqual(
      expect.arrayContaining([
        "id",
        "name",
        "language",
        "category",
        "status",
        "rejectionReason",
        "platformRejection",
        "components",
        "wabaId",
        "createdAt",
        "submittedAt",
        "updatedAt",
      ]),
    );
    expect(template.properties.status.enum).toEqual(["draft", "held", "pending", "approved", "rejected", "paused", "disabled"]);
    expect(template.properties.status.description).toBeTruthy();
    expect(doc.components.schemas.TemplateCreate.properties.components.items.oneOf).toHaveLength(4);
  });
});
