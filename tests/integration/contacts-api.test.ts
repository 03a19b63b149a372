import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { startApiV1Server, tenantWithApiKey } from "../support/api-v1-server";

// The contact endpoints of the public API on a real socket: upsert by number, reading, changing,
// consent, deleting, paging, and every bad input answered 4xx with nothing changed.

type ApiV1Server = Awaited<ReturnType<typeof startApiV1Server>>;
let apiServer: ApiV1Server;
const tenant = tenantWithApiKey;
const call: ApiV1Server["call"] = (...args) => apiServer.call(...args);

beforeAll(async () => {
  apiServer = await startApiV1Server();
});

afterAll(async () => {
  await apiServer.close();
});

beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: apiServer.base }));
});

describe("the contacts API", () => {
  it("adds a contact, answers the stored number, and updates it when the number comes again in another form", async () => {
    const t = await tenant("Nyota Savings Sacco");
    const added = await call(t.key, "POST", "/api/v1/contacts", {
      name: "Amina Hassan",
      phone: "0712 345 678",
      tags: ["Members"],
      consent: { status: "opted_in", source: "form", evidence: "AGM sign-up sheet" },
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ name: "Amina Hassan", phone: "+254712345678", tags: ["members"], optIn: "opted_in" });
    const again = await call(t.key, "POST", "/api/v1/contacts", { name: "Amina H.", phone: "+254 712 345 678" });
    expect(again.body).toMatchObject({ id: added.body.id, name: "Amina H.", tags: ["members"], optIn: "opted_in" });

    const changed = await call(t.key, "PATCH", `/api/v1/contacts/${added.body.id}`, { tags: ["vip"], language: "sw" });
    expect(changed).toMatchObject({ status: 200, body: { tags: ["vip"], language: "sw", name: "Amina H." } });
    const out = await call(t.key, "POST", `/api/v1/contacts/${added.body.id}/consent`, { status: "opted_out", evidence: "Called in" });
    expect(out.body.optIn).toBe("opted_out");
    expect(await rawQuery(`select source, evidence from consent_events where contact_id = $1 order by id`, [added.body.id])).toEqual([
      { source: "form", evidence: "AGM sign-up sheet" },
      { source: "api", evidence: "Called in" },
    ]);
    expect((await call(t.key, "GET", `/api/v1/contacts/${added.body.id}`)).body).toEqual(out.body);
    expect(await call(t.key, "DELETE", `/api/v1/contacts/${added.body.id}`)).toEqual({ status: 204, body: undefined });
    expect((await call(t.key, "GET", `/api/v1/contacts/${added.body.id}`)).status).toBe(404);
  });

  it("lists with search, tag and opt-in filters and a cursor", async () => {
    const t = await tenant("Soko Traders");
    for (let i = 0; i < 30; i++)
      await call(t.key, "POST", "/api/v1/contacts", {
        name: `Mteja ${i}`,
        phone: `07${String(20_000_000 + i)}`,
        tags: i < 5 ? ["wholesale"] : [],
      });
    const first = await call(t.key, "GET", "/api/v1/contacts?limit=20");
    expect(first.body.data).toHaveLength(20);
    const second = await call(t.key, "GET", `/api/v1/contacts?limit=20&cursor=${first.body.nextCursor}`);
    expect(second.body.data).toHaveLength(10);
    expect(second.body.nextCursor).toBeNull();
    expect(new Set([...first.body.data, ...second.body.data].map((c: { id: string }) => c.id)).size).toBe(30);
    expect((await call(t.key, "GET", "/api/v1/contacts?tag=wholesale")).body.data).toHaveLength(5);
    expect((await call(t.key, "GET", "/api/v1/contacts?search=0720000007")).body.data.map((c: { name: string }) => c.name)).toEqual([
      "Mteja 7",
    ]);
    expect((await call(t.key, "GET", "/api/v1/contacts?optIn=opted_in")).body.data).toEqual([]);
  });

  it("answers bad input with a clear 4xx and changes nothing", async () => {
    const t = await tenant("Eldoret Seeds");
    const { body: contact } = await call(t.key, "POST", "/api/v1/contacts", { name: "Kiptoo", phone: "0722 000 111" });
    const before = await rawQuery(`select * from contacts where organization_id = $1`, [t.organizationId]);
    const cases: [string, string, unknown, number, string][] = [
      ["POST", "/api/v1/contacts", { name: "X", phone: "12" }, 422, "invalid_phone_number"],
      ["POST", "/api/v1/contacts", { name: "", phone: "0722 000 222" }, 400, "invalid_request"],
      ["POST", "/api/v1/contacts", { name: "X", phone: "0722 000 222", attributes: { shoe: 42 } }, 422, "unknown_attribute"],
      ["POST", "/api/v1/contacts", { name: "X", phone: "0722 000 222", colour: "red" }, 400, "invalid_request"],
      ["POST", "/api/v1/contacts", "{not json", 400, "invalid"],
      ["POST", "/api/v1/contacts", { name: "X", phone: "0722 000 222", tags: ["a,b"] }, 422, "invalid_tag"],
      ["PATCH", `/api/v1/contacts/${contact.id}`, {}, 400, "invalid_request"],
      ["PATCH", `/api/v1/contacts/${contact.id}`, { phone: "not a phone" }, 422, "invalid_phone_number"],
      ["POST", `/api/v1/contacts/${contact.id}/consent`, { status: "maybe" }, 400, "invalid_request"],
      ["GET", "/api/v1/contacts?cursor=nonsense", undefined, 400, "invalid_request"],
      ["GET", "/api/v1/contacts?limit=1000", undefined, 400, "invalid_request"],
      ["PUT", `/api/v1/contacts/${contact.id}`, { name: "X" }, 405, "method_not_allowed"],
    ];
    for (const [method, path, body, status, code] of cases) {
      const answer = await call(t.key, method, path, body);
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(status);
      expect(answer.body.code, `${method} ${path}`).toContain(code);
      expect(answer.body.message.length).toBeGreaterThan(5);
    }
    expect(await rawQuery(`select * from contacts where organization_id = $1`, [t.organizationId])).toEqual(before);
    expect(await rawQuery(`select count(*)::int as n from consent_events where organization_id = $1`, [t.organizationId])).toEqual([
      { n: 0 },
    ]);
  });

  it("answers another tenant's contact 404 on every endpoint and never lists it", async () => {
    const a = await tenant("Amani Traders");
    const b = await tenant("Baraka Sacco");
    const { body: contact } = await call(a.key, "POST", "/api/v1/contacts", { name: "Achieng", phone: "0733 111 222" });
    for (const [method, path, body] of [
      ["GET", `/api/v1/contacts/${contact.id}`, undefined],
      ["PATCH", `/api/v1/contacts/${contact.id}`, { name: "Taken" }],
      ["POST", `/api/v1/contacts/${contact.id}/consent`, { status: "opted_out" }],
      ["DELETE", `/api/v1/contacts/${contact.id}`, undefined],
    ] as const)
      expect(await call(b.key, method, path, body)).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect((await call(b.key, "GET", "/api/v1/contacts")).body.data).toEqual([]);
    // B adding the same number makes B's own contact; A's stays as it was.
    const mine = await call(b.key, "POST", "/api/v1/contacts", { name: "Achieng B", phone: "0733 111 222" });
    expect(mine.body.id).not.toBe(contact.id);
    expect((await call(a.key, "GET", `/api/v1/contacts/${contact.id}`)).body.name).toBe("Achieng");
  });
});
