// The public API as the built server serves it (decision 187): Express hands /api/v1 to the API's
// own handler, without React Router. What goes through the conversion both ways (headers, a
// streamed JSON body, the answer's status and headers), and what a database
// that goes away in the middle of a call answers: the server's 503, never the API's 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { handleApiV1 } from "~/.server/adapters/api-v1/handle";
import { CONTACT_CREATE_EXAMPLE } from "~/.server/adapters/api-v1/contact-schemas";
import { ERROR_CATALOGUE } from "~/.server/adapters/api-v1/errors";
import { databaseIsDown, isDatabaseUnavailableError } from "~/.server/infrastructure/db/availability";
import { startApiV1Server, tenantWithApiKey } from "../support/api-v1-server";

let api: Awaited<ReturnType<typeof startApiV1Server>>;
let base: string;

beforeAll(async () => {
  api = await startApiV1Server();
  base = api.base;
  // Saving this one phone fails as a connection PostgreSQL terminated does (SQLSTATE 57P01), after
  // the key's statement has answered: the database gone in the middle of a call.
  await rawQuery(`create or replace function jumbe_test_connection_lost() returns trigger language plpgsql as $$
    begin raise exception 'terminating connection due to administrator command' using errcode = '57P01'; end $$`);
  await rawQuery(`create trigger jumbe_test_connection_lost before insert on contacts for each row
    when (new.phone = '${LOST_PHONE}') execute function jumbe_test_connection_lost()`);
});

afterAll(async () => {
  await rawQuery(`drop trigger if exists jumbe_test_connection_lost on contacts`);
  await rawQuery(`drop function if exists jumbe_test_connection_lost()`);
  await api.close();
});

const LOST_PHONE = "+254700000503";

const tenant = tenantWithApiKey;

describe("the public API served by Express", () => {
  it("answers as the API's own handler does, with its status, headers and body", async () => {
    const t = await tenant("Nyota Savings Sacco");
    const served = await fetch(`${base}/api/v1/account`, {
      headers: { authorization: `Bearer ${t.key}`, "x-request-id": "req-express-1" },
    });
    expect(served.status).toBe(200);
    expect(served.headers.get("x-request-id")).toBe("req-express-1");
    expect(served.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
    const body = (await served.json()) as { organization: { id: string; name: string } };
    expect(body.organization).toMatchObject({ id: t.organizationId, name: "Nyota Savings Sacco" });
    const direct = await handleApiV1(new Request("http://jumbe.test/api/v1/account", { headers: { authorization: `Bearer ${t.key}` } }));
    expect(Object.keys((await direct.json()) as object)).toEqual(Object.keys(body));

    // Refusals keep the API's problem document; an unknown path under /api/v1 is the API's 404.
    const refused = await fetch(`${base}/api/v1/account`, { headers: { authorization: "Bearer jmb_live_not-a-key" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(await refused.json()).toMatchObject({ code: "invalid_api_key" });
    const unknown = await fetch(`${base}/api/v1/nothing-here`, { headers: { authorization: `Bearer ${t.key}` } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: "not_found" });
  });

  it("streams a JSON body to the endpoint, which stores what it says", async () => {
    const t = await tenant("Baraka Hardware");
    const made = await fetch(`${base}/api/v1/contacts`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
      body: JSON.stringify({ ...CONTACT_CREATE_EXAMPLE, phone: "+254712000187" }),
    });
    expect(made.status).toBe(200);
    const contact = (await made.json()) as { id: string; name: string };
    expect(contact.name).toBe("Amina Hassan");
    const [stored] = await rawQuery<{ name: string; phone: string }>(
      `select name, phone from contacts where id = $1 and organization_id = $2`,
      [contact.id, t.organizationId],
    );
    expect(stored).toEqual({ name: "Amina Hassan", phone: "+254712000187" });
  });

  it("answers 503 with Retry-After when the database goes away during the call, never the API's 500", async () => {
    const t = await tenant("Mama Oliech Foods");
    const save = (phone: string) => ({
      method: "POST",
      headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
      body: JSON.stringify({ ...CONTACT_CREATE_EXAMPLE, phone }),
    });
    const served = await fetch(`${base}/api/v1/contacts`, save(LOST_PHONE));
    expect(served.status).toBe(503);
    expect(served.headers.get("retry-after")).toMatch(/^\d+$/);
    // The API's own problem document, with a code of its catalogue and the request's id.
    expect(served.headers.get("content-type")).toBe("application/problem+json");
    expect(await served.json()).toEqual({
      type: expect.stringMatching(/\/developers\/errors#error-service_unavailable$/),
      title: ERROR_CATALOGUE.service_unavailable.meaning,
      status: 503,
      detail: expect.stringMatching(/temporarily unavailable/i),
      code: "service_unavailable",
      message: expect.stringMatching(/temporarily unavailable/i),
      requestId: served.headers.get("x-request-id"),
    });
    // The handler itself leaves the outage to the server instead of answering internal_error.
    const thrown = await handleApiV1(new Request("http://jumbe.test/api/v1/contacts", save(LOST_PHONE))).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isDatabaseUnavailableError(thrown)).toBe(true);
    expect(await rawQuery(`select 1 from contacts where organization_id = $1`, [t.organizationId])).toEqual([]);
    // On PostgreSQL the 57P01 marked the database down, so the server answers 503 at once until its
    // probe's `select 1` says it is back (at once here: the connection was never really lost); then
    // another call answers as ever.
    await expect.poll(() => databaseIsDown(), { timeout: 30_000 }).toBe(false);
    expect((await fetch(`${base}/api/v1/contacts`, save("+254700000504"))).status).toBe(200);
  }, 60_000);
});
