import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { startApiV1Server, tenantWithApiKey } from "../support/api-v1-server";

// The AI assistant in the public API (issue 44), on a real socket: its settings read and changed
// (the key write-only, never answered back), the knowledge base's articles added, listed, read,
// changed and deleted; bad input is 422 with its field and changes nothing; reading needs
// automations:view, writing automations:manage; another organisation's article is 404.

type ApiV1Server = Awaited<ReturnType<typeof startApiV1Server>>;
let apiServer: ApiV1Server;
const tenant = tenantWithApiKey;
const call = async (...args: Parameters<ApiV1Server["answer"]>) => {
  const { status, text, body } = await apiServer.answer(...args);
  return { status, text, body };
};

beforeAll(async () => {
  apiServer = await startApiV1Server();
});
afterAll(async () => {
  await apiServer.close();
});
beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: apiServer.base }));
});

const ASSISTANT = "/api/v1/automations/assistant";
const KNOWLEDGE = "/api/v1/automations/knowledge";

describe("/api/v1/automations/assistant", () => {
  it("changes the fields given, takes the key but never answers it, and refuses a bad field by name", async () => {
    const t = await tenant("Nairobi Bike Couriers");
    const empty = await call(t.key, "GET", ASSISTANT);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ enabled: false, apiKeySaved: false, maxTurns: 6, usage: { replies: 0 } });

    const changed = await call(t.key, "PATCH", ASSISTANT, {
      enabled: true,
      baseUrl: `${apiServer.base}/sandbox/llm/v1`,
      model: "jumbe-sandbox-1",
      apiKey: "sk-api-secret-9876zyxw",
      handoverText: "A person will reply shortly.",
      monthlyCapCents: 250_000,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ enabled: true, apiKeySaved: true, apiKeyLast4: "zyxw", monthlyCapCents: 250_000 });
    expect(changed.text).not.toContain("sk-api-secret");
    expect((await call(t.key, "GET", ASSISTANT)).text).not.toContain("sk-api-secret");

    const kept = await call(t.key, "PATCH", ASSISTANT, { maxTurns: 3 });
    expect(kept.body).toMatchObject({ maxTurns: 3, apiKeySaved: true });
    const forgotten = await call(t.key, "PATCH", ASSISTANT, { apiKey: null });
    expect(forgotten.body).toMatchObject({ apiKeySaved: false, apiKeyLast4: "" });

    const refused = await call(t.key, "PATCH", ASSISTANT, { baseUrl: "http://192.168.0.20:11434/v1" });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "invalid_automation", field: "baseUrl" });
    expect((await call(t.key, "PATCH", ASSISTANT, { maxTurns: 99 })).body).toMatchObject({ field: "maxTurns" });
    expect((await call(t.key, "GET", ASSISTANT)).body).toMatchObject({ maxTurns: 3, baseUrl: `${apiServer.base}/sandbox/llm/v1` });
  });

  it("refuses a base URL on another origin without the key again (422 at apiKey), and changes nothing", async () => {
    const t = await tenant("Origin Check Traders");
    const sandbox = `${apiServer.base}/sandbox/llm/v1`;
    await call(t.key, "PATCH", ASSISTANT, { baseUrl: sandbox, model: "jumbe-sandbox-1", apiKey: "sk-origin-secret-abcd" });

    // Another host with the saved key kept: refused, the key stays and stays where it was.
    const moved = await call(t.key, "PATCH", ASSISTANT, { baseUrl: "http://127.0.0.9:8080/v1" });
    expect(moved.status).toBe(422);
    expect(moved.body).toMatchObject({
      code: "invalid_automation",
      field: "apiKey",
      message: expect.stringContaining("The endpoint's address changed: give its key again"),
    });
    expect((await call(t.key, "GET", ASSISTANT)).body).toMatchObject({ baseUrl: sandbox, apiKeySaved: true, apiKeyLast4: "abcd" });

    // Only the scheme changing is another origin too.
    const https = await call(t.key, "PATCH", ASSISTANT, { baseUrl: sandbox.replace("http://", "https://") });
    expect(https.body).toMatchObject({ field: "apiKey" });
    // The same origin on another path keeps the key; another origin with the key again, or forgetting it, is saved.
    expect((await call(t.key, "PATCH", ASSISTANT, { baseUrl: `${sandbox}/` })).body).toMatchObject({ apiKeySaved: true });
    const rekeyed = await call(t.key, "PATCH", ASSISTANT, { baseUrl: "http://127.0.0.9:8080/v1", apiKey: "sk-other-host-efgh" });
    expect(rekeyed.body).toMatchObject({ baseUrl: "http://127.0.0.9:8080/v1", apiKeySaved: true, apiKeyLast4: "efgh" });
    const keyless = await call(t.key, "PATCH", ASSISTANT, { baseUrl: sandbox, apiKey: null });
    expect(keyless.body).toMatchObject({ baseUrl: sandbox, apiKeySaved: false });
  });

  it("lets a viewer's key read but not change", async () => {
    const t = await tenant("Kericho Tea Shop");
    await rawQuery(`update users set org_role = 'viewer' where id = $1`, [t.userId]);
    expect((await call(t.key, "GET", ASSISTANT)).status).toBe(200);
    expect((await call(t.key, "PATCH", ASSISTANT, { maxTurns: 2 })).status).toBe(403);
    expect((await call(t.key, "POST", KNOWLEDGE, { title: "a", body: "b" })).status).toBe(403);
  });
});

describe("/api/v1/automations/knowledge", () => {
  it("adds, lists, reads, changes and deletes articles; another organisation's id is 404", async () => {
    const t = await tenant("Machakos Fruit Market");
    const other = await tenant("Embu Fruit Market");
    const made = await call(t.key, "POST", KNOWLEDGE, { title: "Delivery", body: "We deliver mangoes in Machakos town for KES 100." });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ title: "Delivery", source: "manual" });
    const id = made.body.id as string;

    expect((await call(t.key, "GET", KNOWLEDGE)).body.data).toHaveLength(1);
    expect((await call(t.key, "GET", `${KNOWLEDGE}?q=mangoes`)).body.data).toHaveLength(1);
    expect((await call(t.key, "GET", `${KNOWLEDGE}?q=pineapple`)).body.data).toHaveLength(0);
    expect((await call(t.key, "PATCH", `${KNOWLEDGE}/${id}`, { body: "Delivery in Machakos is KES 150." })).body).toMatchObject({
      title: "Delivery",
      body: "Delivery in Machakos is KES 150.",
    });
    expect((await call(t.key, "PATCH", `${KNOWLEDGE}/${id}`, { title: "" })).body).toMatchObject({
      code: "invalid_automation",
      field: "title",
    });
    expect((await call(t.key, "POST", KNOWLEDGE, { title: "Long", body: "x".repeat(20_001) })).body).toMatchObject({ field: "body" });

    for (const [method, body] of [
      ["GET", undefined],
      ["PATCH", { title: "Taken" }],
      ["DELETE", undefined],
    ] as const)
      expect((await call(other.key, method, `${KNOWLEDGE}/${id}`, body)).status).toBe(404);
    expect((await call(other.key, "GET", KNOWLEDGE)).body.data).toEqual([]);
    expect((await call(t.key, "GET", `${KNOWLEDGE}/not-an-id`)).status).toBe(404);

    expect((await call(t.key, "DELETE", `${KNOWLEDGE}/${id}`)).status).toBe(204);
    expect((await call(t.key, "GET", `${KNOWLEDGE}/${id}`)).status).toBe(404);
  });
});
