import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { customerFromAd } from "../support/ad-customers";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { startApiV1Server, tenantWithApiKey } from "../support/api-v1-server";

// Issue 77: the API's keyword rules read and write "came from an ad" (fromAd) as the rule form does:
// "any", or the id of an ad a customer of the organisation came from; an unknown id, or another
// organisation's, is 422 invalid_automation at fromAd (never a 500) and stores nothing; a rule with an
// ad may have no keywords; a PATCH that does not name fromAd keeps it.

type ApiV1Server = Awaited<ReturnType<typeof startApiV1Server>>;
let apiServer: ApiV1Server;
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

const storedRules = (organizationId: string) =>
  rawQuery<{ from_ad: string | null; keywords: string[] }>(
    `select from_ad, keywords from automation_rules where organization_id = $1 order by position`,
    [organizationId],
  );

const MAJI = "120226305854810726";
const OTHERS = "120226305854810999";
const welcome = { name: "Maji welcome", matchType: "contains", keywords: [], actions: { reply: "Karibu! Maji ni KES 50." } };
const REFUSED = "fromAd: Choose an ad your customers have come from, any ad, or every message.";

describe("a rule's ad in the API", () => {
  it("writes and reads fromAd, keeps it on a PATCH that does not name it, and clears it with null", async () => {
    const t = await tenantWithApiKey("Maji Safi Ltd");
    await customerFromAd(t.organizationId, { sourceId: MAJI, headline: "Maji safi" }, "+254712000401");

    const added = await call(t.key, "POST", "/api/v1/automations/rules", { ...welcome, fromAd: MAJI });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ keywords: [], fromAd: MAJI });
    const id = added.body.id as string;
    expect(await storedRules(t.organizationId)).toEqual([{ from_ad: MAJI, keywords: [] }]);

    const renamed = await call(t.key, "PATCH", `/api/v1/automations/rules/${id}`, { name: "Maji karibu" });
    expect(renamed.body).toMatchObject({ name: "Maji karibu", fromAd: MAJI });
    const anyAd = await call(t.key, "PATCH", `/api/v1/automations/rules/${id}`, { fromAd: "any", keywords: ["bei"] });
    expect(anyAd.body).toMatchObject({ fromAd: "any", keywords: ["bei"] });
    expect((await call(t.key, "GET", `/api/v1/automations/rules/${id}`)).body).toMatchObject({ fromAd: "any" });
    expect((await call(t.key, "GET", "/api/v1/automations/rules")).body.data).toMatchObject([{ id, fromAd: "any" }]);

    const everyMessage = await call(t.key, "PATCH", `/api/v1/automations/rules/${id}`, { fromAd: null });
    expect(everyMessage.body).toMatchObject({ fromAd: null, keywords: ["bei"] });
  });

  it("refuses an unknown ad, another organisation's ad and no keywords without an ad with 422 at the field, storing nothing", async () => {
    const t = await tenantWithApiKey("Tanki Bora");
    const other = await tenantWithApiKey("Other Ltd");
    await customerFromAd(t.organizationId, { sourceId: MAJI, headline: "Maji safi" }, "+254712000402");
    await customerFromAd(other.organizationId, { sourceId: OTHERS, headline: "Maji safi" }, "+254712000403");

    const cases: [unknown, string, string][] = [
      [{ ...welcome, fromAd: "120000000000000000" }, "fromAd", REFUSED],
      [{ ...welcome, fromAd: OTHERS }, "fromAd", REFUSED],
      [{ ...welcome, fromAd: "x".repeat(129) }, "fromAd", REFUSED],
      [{ ...welcome, fromAd: null }, "keywords", "keywords: Give at least one keyword, one a line."],
    ];
    for (const [body, field, message] of cases) {
      const answer = await call(t.key, "POST", "/api/v1/automations/rules", body);
      expect(answer, JSON.stringify(body).slice(0, 80)).toMatchObject({
        status: 422,
        body: { code: "invalid_automation", field, message },
      });
    }
    expect(await storedRules(t.organizationId)).toEqual([]);

    const added = await call(t.key, "POST", "/api/v1/automations/rules", { ...welcome, fromAd: MAJI });
    const changed = await call(t.key, "PATCH", `/api/v1/automations/rules/${added.body.id as string}`, { fromAd: OTHERS });
    expect(changed).toMatchObject({ status: 422, body: { code: "invalid_automation", field: "fromAd", message: REFUSED } });
    expect(await storedRules(t.organizationId)).toEqual([{ from_ad: MAJI, keywords: [] }]);
    // A number is not an ad id: the body's shape is refused before any check.
    expect((await call(t.key, "POST", "/api/v1/automations/rules", { ...welcome, fromAd: 42 })).status).toBe(400);
  });
});
