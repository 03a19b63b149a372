import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { FLOWS_MAX } from "~/lib/schemas/flows";
import { startApiV1Server, tenantWithApiKey } from "../support/api-v1-server";

// Chatbot flows in the public API (issue 44), on a real socket: added, listed, read, changed,
// published and deleted with an API key; reading needs automations:view, writing automations:manage;
// a bad step is 422 invalid_automation naming it, the limit 409 flow_limit; another organisation's
// key sees none of it.

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

const FLOWS = "/api/v1/automations/flows";
const steps = [
  {
    id: "ask",
    type: "question",
    text: "Eneo lako?",
    input: "buttons",
    choices: ["Nairobi", "Mombasa"],
    validate: "choice",
    variable: "area",
  },
  { id: "check", type: "branch", source: "answer", operator: "equals", value: "Nairobi", then: "nbi", else: "next" },
  { id: "msa", type: "message", text: "Tunafika Mombasa Jumanne." },
  { id: "end", type: "end" },
  { id: "nbi", type: "message", text: "Tunafika Nairobi kila siku." },
];

describe("the flows' API", () => {
  it("adds, lists, reads, changes, publishes and deletes a flow", async () => {
    const t = await tenant("Api Flows Ltd");
    const created = await call(t.key, "POST", FLOWS, { name: "Delivery areas", steps });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Delivery areas", status: "draft", liveVersion: null, unpublished: true, idleMinutes: 30 });
    expect(created.body.steps).toHaveLength(5);
    const id = created.body.id as string;
    expect((await call(t.key, "GET", FLOWS)).body.data.map((f: { id: string }) => f.id)).toEqual([id]);
    // Turning on before publishing is refused; publishing makes version 1 live.
    expect((await call(t.key, "PATCH", `${FLOWS}/${id}`, { enabled: true })).body).toMatchObject({ code: "invalid_automation" });
    const published = await call(t.key, "POST", `${FLOWS}/${id}/publish`);
    expect(published).toMatchObject({ status: 200, body: { status: "live", liveVersion: 1, unpublished: false } });
    const changed = await call(t.key, "PATCH", `${FLOWS}/${id}`, { idleMinutes: 60, enabled: false });
    expect(changed.body).toMatchObject({ idleMinutes: 60, status: "off", liveVersion: 1 });
    expect((await call(t.key, "GET", `${FLOWS}/${id}`)).body).toMatchObject({
      id,
      sessions: { active: 0, onOlderVersions: 0, completed: 0 },
    });
    // A keyword rule starts it (actions.startFlow); another organisation's flow is refused at that field.
    const rule = await call(t.key, "POST", "/api/v1/automations/rules", {
      name: "Areas",
      matchType: "exact",
      keywords: ["maeneo"],
      actions: { startFlow: id },
    });
    expect(rule).toMatchObject({ status: 201, body: { actions: { startFlow: id, reply: null } } });
    const other = await tenant("Api Flows Elsewhere");
    const foreign = await call(other.key, "POST", "/api/v1/automations/rules", {
      name: "Theirs",
      matchType: "exact",
      keywords: ["maeneo"],
      actions: { startFlow: id },
    });
    expect(foreign).toMatchObject({ status: 422, body: { code: "invalid_automation", field: "actions.startFlow" } });
    expect((await call(t.key, "DELETE", `${FLOWS}/${id}`)).status).toBe(204);
    expect((await call(t.key, "GET", `${FLOWS}/${id}`)).status).toBe(404);
  });

  it("names a bad step's field, refuses past the limit, and keeps tenants and roles apart", async () => {
    const t = await tenant("Api Flows Checks");
    const bad = await call(t.key, "POST", FLOWS, { name: "Bad", steps: [steps[0], { ...steps[1], then: "nowhere" }] });
    expect(bad).toMatchObject({ status: 422, body: { code: "invalid_automation", field: "steps[1].then" } });
    // An End step that counts as a conversion (decision 158): kept as given; anything but true or false refused at its field.
    const converting = await call(t.key, "POST", FLOWS, { name: "Leads", steps: [{ id: "done", type: "end", conversion: true }] });
    expect(converting).toMatchObject({ status: 201, body: { steps: [{ id: "done", type: "end", conversion: true }] } });
    expect((await call(t.key, "GET", `${FLOWS}/${converting.body.id}`)).body.steps).toEqual([
      { id: "done", type: "end", conversion: true },
    ]);
    expect(await call(t.key, "DELETE", `${FLOWS}/${converting.body.id}`)).toMatchObject({ status: 204 });
    const notBoolean = await call(t.key, "POST", FLOWS, { name: "Leads", steps: [{ type: "end", conversion: "yes" }] });
    expect(notBoolean).toMatchObject({
      status: 422,
      body: { code: "invalid_automation", field: "steps[0].conversion", detail: expect.stringContaining("Counts as a conversion") },
    });
    const four = await call(t.key, "POST", FLOWS, { name: "Four", steps: [{ ...steps[0], choices: ["A", "B", "C", "D"] }] });
    expect(four.body).toMatchObject({ code: "invalid_automation", field: "steps[0].choices" });
    // An HTTP step's address is checked when saved, as at the call (decision 099).
    for (const url of [
      "http://127.0.0.1/x",
      "file:///etc/passwd",
      "gopher://8.8.8.8/_x",
      "https://169.254.169.254/",
      "https://{{host}}/x",
    ]) {
      const refused = await call(t.key, "POST", FLOWS, { name: "Lookup", steps: [{ type: "http", method: "GET", url }] });
      expect(refused, url).toMatchObject({ status: 422, body: { code: "invalid_automation", field: "steps[0].url" } });
    }
    expect(await rawQuery(`select id from flows where organization_id = $1`, [t.organizationId])).toEqual([]);
    for (let i = 0; i < FLOWS_MAX; i++) expect((await call(t.key, "POST", FLOWS, { name: `Flow ${i}` })).status).toBe(201);
    expect(await call(t.key, "POST", FLOWS, { name: "One more" })).toMatchObject({ status: 409, body: { code: "flow_limit" } });

    const other = await tenant("Api Flows Other");
    const [mine] = (await call(t.key, "GET", FLOWS)).body.data;
    expect((await call(other.key, "GET", `${FLOWS}/${mine.id}`)).status).toBe(404);
    expect((await call(other.key, "DELETE", `${FLOWS}/${mine.id}`)).status).toBe(404);
    expect((await call(other.key, "GET", FLOWS)).body.data).toEqual([]);

    await rawQuery(`update users set org_role = 'viewer' where id = $1`, [t.userId]);
    expect((await call(t.key, "GET", FLOWS)).status).toBe(200);
    expect((await call(t.key, "POST", `${FLOWS}/${mine.id}/publish`)).status).toBe(403);
  });
});
