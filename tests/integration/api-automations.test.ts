import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { startApiV1Server, tenantWithApiKey } from "../support/api-v1-server";

// Automations in the public API (issue 44), on a real socket: keyword rules added, listed, read,
// changed, reordered and deleted with an API key; the welcome and away messages and business hours
// read and changed; the key's role decides reading (automations:view) and writing
// (automations:manage) as on the Automations page; every bad input is 4xx with its field and
// changes nothing; another organisation's key sees none of it.

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

type Tenant = Awaited<ReturnType<typeof tenant>>;

/** The key now acts for a maker with this role (keys act with their maker's role, decision 052). */
const makerRole = (t: Tenant, role: "owner" | "admin" | "agent" | "viewer") =>
  rawQuery(`update users set org_role = $2 where id = $1`, [t.userId, role]);

const storedRules = (organizationId: string) =>
  rawQuery(`select * from automation_rules where organization_id = $1 order by position, created_at`, [organizationId]);
const storedSettings = (organizationId: string) =>
  rawQuery(`select * from automation_settings where organization_id = $1`, [organizationId]);
const activity = (organizationId: string) =>
  rawQuery<{ action: string; details: string }>(
    `select action, details from activity_logs where organization_id = $1 and type = 'settings' order by id`,
    [organizationId],
  );

const prices = {
  name: "Prices",
  matchType: "fuzzy",
  keywords: ["price", "bei"],
  threshold: 0.75,
  actions: { reply: "Bei zetu: Starter KES 2,000 kwa mwezi.", addTags: ["asked-price"] },
};
const hours = {
  name: "Hours",
  matchType: "contains",
  keywords: ["saa ngapi", "open"],
  actions: { reply: "Tuko wazi 8 asubuhi hadi 5 jioni." },
};

describe("keyword rules in the API", () => {
  it("adds, lists in order, reads, changes, reorders and deletes rules, recording each change as the page does", async () => {
    const t = await tenant("Nyota Savings Sacco");
    expect(await call(t.key, "GET", "/api/v1/automations/rules")).toEqual({ status: 200, body: { data: [], hasMore: false } });

    const added = await call(t.key, "POST", "/api/v1/automations/rules", prices);
    expect(added).toEqual({
      status: 201,
      body: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: "Prices",
        matchType: "fuzzy",
        keywords: ["price", "bei"],
        threshold: 0.75,
        phoneNumberId: null,
        fromAd: null,
        cooldownMinutes: 0,
        actions: {
          reply: prices.actions.reply,
          buttons: [],
          list: null,
          template: null,
          addTags: ["asked-price"],
          removeTags: [],
          assignTo: null,
          setField: null,
          webhookUrl: null,
          then: null,
          startFlow: null,
          sendProducts: null,
        },
        position: 1,
        enabled: true,
        firedCount: 0,
        lastFiredAt: null,
      },
    });
    const second = await call(t.key, "POST", "/api/v1/automations/rules", { ...hours, actions: { ...hours.actions, assignTo: t.userId } });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ position: 2, threshold: null, actions: { assignTo: t.userId, addTags: [] } });

    const list = await call(t.key, "GET", "/api/v1/automations/rules");
    expect(list.body.data.map((r: { name: string; position: number }) => [r.name, r.position])).toEqual([
      ["Prices", 1],
      ["Hours", 2],
    ]);
    expect(list.body.data[0]).toEqual(added.body);
    expect(await call(t.key, "GET", `/api/v1/automations/rules/${second.body.id}`)).toEqual({ status: 200, body: second.body });

    // Partial: the reply changes, the tags stay; the rule is turned off and moved first.
    const changed = await call(t.key, "PATCH", `/api/v1/automations/rules/${second.body.id}`, {
      actions: { reply: "Tuko wazi saa 2 asubuhi hadi saa 11 jioni.", assignTo: null, setField: null, webhookUrl: null, then: null },
      cooldownMinutes: 30,
      enabled: false,
      position: 1,
    });
    expect(changed).toEqual({
      status: 200,
      body: {
        ...second.body,
        cooldownMinutes: 30,
        actions: {
          reply: "Tuko wazi saa 2 asubuhi hadi saa 11 jioni.",
          buttons: [],
          list: null,
          template: null,
          addTags: [],
          removeTags: [],
          assignTo: null,
          setField: null,
          webhookUrl: null,
          then: null,
          startFlow: null,
          sendProducts: null,
        },
        enabled: false,
        position: 1,
      },
    });
    expect((await call(t.key, "GET", "/api/v1/automations/rules")).body.data.map((r: { name: string }) => r.name)).toEqual([
      "Hours",
      "Prices",
    ]);
    // Only a field: the rest stays; a place past the end puts it last; a fuzzy rule made exact has no threshold.
    const exact = await call(t.key, "PATCH", `/api/v1/automations/rules/${second.body.id}`, { matchType: "exact", position: 99 });
    expect(exact.body).toMatchObject({ matchType: "exact", threshold: null, position: 2, enabled: false, cooldownMinutes: 30 });
    const again = await call(t.key, "PATCH", `/api/v1/automations/rules/${added.body.id}`, {
      actions: { addTags: null, removeTags: ["new"] },
    });
    expect(again.body.actions).toEqual({
      reply: prices.actions.reply,
      buttons: [],
      list: null,
      template: null,
      addTags: [],
      removeTags: ["new"],
      assignTo: null,
      setField: null,
      webhookUrl: null,
      then: null,
      startFlow: null,
      sendProducts: null,
    });
    // Reply buttons, and the least busy member: kept until changed.
    const buttons = await call(t.key, "PATCH", `/api/v1/automations/rules/${added.body.id}`, {
      actions: { buttons: ["Starter", "Business"], assignTo: "least_busy" },
    });
    expect(buttons.body.actions).toEqual({
      reply: prices.actions.reply,
      buttons: ["Starter", "Business"],
      list: null,
      template: null,
      addTags: [],
      removeTags: ["new"],
      assignTo: "least_busy",
      setField: null,
      webhookUrl: null,
      then: null,
      startFlow: null,
      sendProducts: null,
    });
    expect(again.body).toMatchObject({ threshold: 0.75, position: 1, enabled: true });
    // A list instead of the buttons; a list with buttons is refused at the list.
    const both = await call(t.key, "PATCH", `/api/v1/automations/rules/${added.body.id}`, {
      actions: { list: { button: "Mipango", rows: ["Starter", "Business", "Enterprise"] } },
    });
    expect(both).toMatchObject({
      status: 422,
      body: { code: "invalid_automation", field: "actions.list", message: "actions.list: Reply buttons or a list, not both." },
    });
    const listed = await call(t.key, "PATCH", `/api/v1/automations/rules/${added.body.id}`, {
      actions: { buttons: [], list: { button: "Mipango", rows: ["Starter", "Business", "Enterprise"] } },
    });
    expect(listed.body.actions).toMatchObject({ buttons: [], list: { button: "Mipango", rows: ["Starter", "Business", "Enterprise"] } });
    // A template that is not one of the organisation's approved ones, at its field.
    const template = await call(t.key, "PATCH", `/api/v1/automations/rules/${added.body.id}`, {
      actions: { reply: null, buttons: [], list: null, template: { name: "hakuna_kiolezo", language: "en", parameters: [] } },
    });
    expect(template).toMatchObject({ status: 422, body: { code: "invalid_automation", field: "actions.template" } });

    expect(await call(t.key, "DELETE", `/api/v1/automations/rules/${added.body.id}`)).toEqual({ status: 204, body: undefined });
    expect(await call(t.key, "GET", `/api/v1/automations/rules/${added.body.id}`)).toMatchObject({
      status: 404,
      body: { code: "not_found", message: expect.stringMatching(/^No keyword rule with this id/) },
    });
    expect((await call(t.key, "GET", "/api/v1/automations/rules")).body.data).toEqual([{ ...exact.body, position: 1 }]);

    // The domain recorded each change as for the page, with no member (a key acted).
    expect(await activity(t.organizationId)).toEqual([
      { action: "Automation rule added", details: "Prices" },
      { action: "Automation rule added", details: "Hours" },
      { action: "Automation rule changed", details: "Hours" },
      { action: "Automation rule turned off", details: "Hours" },
      { action: "Automation rule moved", details: "Hours" },
      { action: "Automation rule changed", details: "Hours" },
      { action: "Automation rule moved", details: "Hours" },
      { action: "Automation rule changed", details: "Prices" },
      { action: "Automation rule changed", details: "Prices" },
      { action: "Automation rule changed", details: "Prices" },
      { action: "Automation rule deleted", details: "Prices" },
    ]);
    expect(
      await rawQuery(
        `select count(*)::int as n from activity_logs where organization_id = $1 and type = 'settings' and user_id is not null`,
        [t.organizationId],
      ),
    ).toEqual([{ n: 0 }]);
  });

  it("refuses a bad rule with 422 invalid_automation and the field, or 400 for a malformed body, and stores nothing", async () => {
    const t = await tenant("Eldoret Seeds");
    const kept = await call(t.key, "POST", "/api/v1/automations/rules", hours);
    const before = await storedRules(t.organizationId);
    const cases: [string, string, unknown, number, string, string | undefined][] = [
      // A pattern that is not a regular expression, one that could backtrack for long: the keyword's place.
      ["POST", "", { ...hours, matchType: "regex", keywords: ["^bei", "(unclosed"] }, 422, "invalid_automation", "keywords[1]"],
      ["POST", "", { ...hours, matchType: "regex", keywords: ["(a+)+$"] }, 422, "invalid_automation", "keywords[0]"],
      ["POST", "", { ...hours, keywords: ["bei", "", "Bei!"] }, 422, "invalid_automation", "keywords[2]"],
      ["POST", "", { ...hours, keywords: [] }, 422, "invalid_automation", "keywords"],
      ["POST", "", { ...prices, threshold: 0.2 }, 422, "invalid_automation", "threshold"],
      ["POST", "", { ...hours, name: "  " }, 422, "invalid_automation", "name"],
      ["POST", "", { ...hours, cooldownMinutes: 100_000 }, 422, "invalid_automation", "cooldownMinutes"],
      ["POST", "", { ...hours, phoneNumberId: "1065999" }, 422, "invalid_automation", "phoneNumberId"],
      ["POST", "", { ...hours, actions: { reply: " " } }, 422, "invalid_automation", "actions"],
      ["POST", "", { ...hours, actions: { reply: "x".repeat(4097) } }, 422, "invalid_automation", "actions.reply"],
      ["POST", "", { ...hours, actions: { addTags: ["ok", "t".repeat(41)] } }, 422, "invalid_automation", "actions.addTags[1]"],
      [
        "POST",
        "",
        { ...hours, actions: { assignTo: "7a1d4c52-0f0e-4b8e-9d43-2c8f5f6d9e10" } },
        422,
        "invalid_automation",
        "actions.assignTo",
      ],
      ["POST", "", { ...hours, actions: { reply: "Chagua", buttons: ["A", "B", "C", "D"] } }, 422, "invalid_automation", "actions.buttons"],
      ["POST", "", { ...hours, actions: { buttons: ["Gari"], addTags: ["claim"] } }, 422, "invalid_automation", "actions.buttons"],
      [
        "POST",
        "",
        { ...hours, actions: { setField: { key: "county", value: "Nakuru" } } },
        422,
        "invalid_automation",
        "actions.setField.key",
      ],
      ["POST", "", { ...hours, matchType: "sometimes" }, 400, "invalid_request", undefined],
      ["POST", "", { ...hours, colour: "red" }, 400, "invalid_request", undefined],
      ["POST", "", { ...hours, actions: [{ type: "reply", text: "hi" }] }, 400, "invalid_request", undefined],
      ["POST", "", "{not json", 400, "invalid_request", undefined],
      // A change that breaks the rule is refused whole: neither the name nor the place changes.
      ["PATCH", `/${kept.body.id}`, { name: "Renamed", matchType: "regex", keywords: ["[z-a]"] }, 422, "invalid_automation", "keywords[0]"],
      ["PATCH", `/${kept.body.id}`, { enabled: false, position: 2, actions: { reply: null } }, 422, "invalid_automation", "actions"],
      ["PATCH", `/${kept.body.id}`, {}, 400, "invalid_request", undefined],
      ["PATCH", `/${kept.body.id}`, { position: 0 }, 400, "invalid_request", undefined],
    ];
    for (const [method, path, body, status, code, field] of cases) {
      const answer = await call(t.key, method, `/api/v1/automations/rules${path}`, body);
      const what = `${method} ${JSON.stringify(body).slice(0, 80)}`;
      expect(answer.status, what).toBe(status);
      expect(answer.body.code, what).toBe(code);
      expect(answer.body.field, what).toBe(field);
      if (field) expect(answer.body.message, what).toMatch(new RegExp(`^${field.replace(/[[\].]/g, "\\$&")}: \\S`));
    }
    // The words say what is wrong, in English.
    const unsafe = await call(t.key, "POST", "/api/v1/automations/rules", { ...hours, matchType: "regex", keywords: ["(a+)+$"] });
    expect(unsafe.body.message).toBe(
      "keywords[0]: “(a+)+$” could take too long on some messages (nested repeats or back-references): write it more simply.",
    );
    expect(await storedRules(t.organizationId)).toEqual(before);
  });

  it("refuses a rule past the organisation's limit with 409 rule_limit", async () => {
    const t = await tenant("Busy Rules Traders");
    await rawQuery(
      `insert into automation_rules (organization_id, name, match_type, keywords, actions, position)
       select $1, 'Rule ' || n, 'contains', array['word' || n], '[{"type":"reply","text":"hi"}]'::jsonb, n from generate_series(1, 500) as n`,
      [t.organizationId],
    );
    const refused = await call(t.key, "POST", "/api/v1/automations/rules", hours);
    expect(refused).toMatchObject({ status: 409, body: { code: "rule_limit" } });
    expect((await call(t.key, "GET", "/api/v1/automations/rules")).body.data).toHaveLength(500);
  });

  it("lets a key read but not write rules and settings when its maker may only view them", async () => {
    const t = await tenant("Viewer Key Traders");
    const rule = (await call(t.key, "POST", "/api/v1/automations/rules", hours)).body;
    for (const role of ["viewer", "agent"] as const) {
      await makerRole(t, role);
      expect((await call(t.key, "GET", "/api/v1/automations/rules")).body.data).toEqual([rule]);
      expect((await call(t.key, "GET", `/api/v1/automations/rules/${rule.id}`)).status).toBe(200);
      expect((await call(t.key, "GET", "/api/v1/automations/settings")).status).toBe(200);
      for (const [method, path, body] of [
        ["POST", "/api/v1/automations/rules", prices],
        ["PATCH", `/api/v1/automations/rules/${rule.id}`, { enabled: false }],
        ["DELETE", `/api/v1/automations/rules/${rule.id}`, undefined],
        ["PATCH", "/api/v1/automations/settings", { holidayMode: true }],
      ] as const) {
        const refused = await call(t.key, method, path, body);
        expect(refused, `${role} ${method} ${path}`).toMatchObject({
          status: 403,
          body: { code: "permission_denied", permission: "automations:manage" },
        });
      }
    }
    expect((await storedRules(t.organizationId)).map((r) => (r as { enabled: boolean }).enabled)).toEqual([true]);
    expect(await storedSettings(t.organizationId)).toEqual([expect.objectContaining({ holiday_mode: false })]);
    await makerRole(t, "admin");
    expect((await call(t.key, "PATCH", `/api/v1/automations/rules/${rule.id}`, { enabled: false })).body.enabled).toBe(false);
  });

  it("answers another organisation's rule, and a malformed id, 404 on every endpoint and never lists it", async () => {
    const a = await tenant("Amani Traders");
    const b = await tenant("Baraka Sacco");
    const rule = (await call(a.key, "POST", "/api/v1/automations/rules", hours)).body;
    for (const id of [rule.id, "not-a-uuid", "7a1d4c52-0f0e-4b8e-9d43-2c8f5f6d9e10"])
      for (const [method, body] of [
        ["GET", undefined],
        ["PATCH", { name: "Taken" }],
        ["DELETE", undefined],
      ] as const)
        expect(await call(b.key, method, `/api/v1/automations/rules/${id}`, body), `${method} ${id}`).toMatchObject({
          status: 404,
          body: { code: "not_found", message: expect.stringMatching(/^No keyword rule with this id in your organisation/) },
        });
    expect((await call(b.key, "GET", "/api/v1/automations/rules")).body.data).toEqual([]);
    // B's settings are B's own.
    await call(a.key, "PATCH", "/api/v1/automations/settings", { welcome: { enabled: true, text: "Karibu Amani!" } });
    expect((await call(b.key, "GET", "/api/v1/automations/settings")).body.welcome).toEqual({ enabled: false, text: "" });
    expect(await call(a.key, "GET", `/api/v1/automations/rules/${rule.id}`)).toEqual({ status: 200, body: rule });
  });
});

const closedWeek = { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] };

describe("the welcome and away messages and business hours in the API", () => {
  it("reads the defaults, saves changes field by field, and says whether the organisation is open now", async () => {
    const t = await tenant("Mama Mboga Supplies");
    expect(await call(t.key, "GET", "/api/v1/automations/settings")).toEqual({
      status: 200,
      body: {
        welcome: { enabled: false, text: "" },
        away: { enabled: false, text: "" },
        hours: closedWeek,
        holidays: [],
        holidayMode: false,
        timeZone: "Africa/Nairobi",
        openNow: false,
        nextOpeningAt: null,
      },
    });
    const saved = await call(t.key, "PATCH", "/api/v1/automations/settings", {
      welcome: { enabled: true, text: "  Karibu Mama Mboga!  " },
      away: { enabled: true, text: "Tumefunga kwa sasa." },
      hours: { monday: [{ from: "8:00", to: "17:00" }], friday: [{ from: "20:00", to: "02:00" }] },
      holidays: ["2026-12-26", "2026-12-25", "2026-12-25"],
    });
    expect(saved).toEqual({
      status: 200,
      body: {
        welcome: { enabled: true, text: "Karibu Mama Mboga!" },
        away: { enabled: true, text: "Tumefunga kwa sasa." },
        hours: { ...closedWeek, monday: [{ from: "08:00", to: "17:00" }], friday: [{ from: "20:00", to: "02:00" }] },
        holidays: ["2026-12-25", "2026-12-26"],
        holidayMode: false,
        timeZone: "Africa/Nairobi",
        openNow: saved.body.openNow,
        nextOpeningAt: saved.body.nextOpeningAt,
      },
    });
    // Open Monday 08:00-17:00 or Friday night, or closed until one of them opens.
    expect(saved.body.openNow ? saved.body.nextOpeningAt : typeof saved.body.nextOpeningAt).toBe(saved.body.openNow ? null : "string");
    expect(await call(t.key, "GET", "/api/v1/automations/settings")).toEqual(saved);

    // Only the days given change; the away message keeps its text when turned off.
    const partial = await call(t.key, "PATCH", "/api/v1/automations/settings", {
      away: { enabled: false },
      hours: { friday: [], saturday: [{ from: "09:00", to: "13:00" }] },
    });
    expect(partial.body).toMatchObject({
      welcome: { enabled: true, text: "Karibu Mama Mboga!" },
      away: { enabled: false, text: "Tumefunga kwa sasa." },
      hours: { ...closedWeek, monday: [{ from: "08:00", to: "17:00" }], saturday: [{ from: "09:00", to: "13:00" }] },
      holidays: ["2026-12-25", "2026-12-26"],
    });

    // Open around the clock: open now, no next opening to announce; closed but Monday to Saturday: the next opening.
    const allDay = [{ from: "00:00", to: "24:00" }];
    const open = await call(t.key, "PATCH", "/api/v1/automations/settings", {
      hours: Object.fromEntries(Object.keys(closedWeek).map((day) => [day, allDay])),
      holidays: [],
    });
    expect(open.body).toMatchObject({ openNow: true, nextOpeningAt: null });
    const inHolidayMode = await call(t.key, "PATCH", "/api/v1/automations/settings", { holidayMode: true });
    expect(inHolidayMode.body).toMatchObject({ holidayMode: true, openNow: false, nextOpeningAt: null });
    const nairobiHour = Number(
      new Intl.DateTimeFormat("en-GB", { timeZone: "Africa/Nairobi", hour: "2-digit", hourCycle: "h23" }).format(new Date()),
    );
    const later = `${String((nairobiHour + 2) % 24).padStart(2, "0")}:00`;
    const oneOpening = await call(t.key, "PATCH", "/api/v1/automations/settings", {
      holidayMode: false,
      hours: Object.fromEntries(
        Object.keys(closedWeek).map((day) => [day, [{ from: later, to: later === "23:00" ? "24:00" : `${later.slice(0, 2)}:30` }]]),
      ),
    });
    expect(oneOpening.body.openNow).toBe(false);
    const next = Date.parse(oneOpening.body.nextOpeningAt);
    expect(next - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(next - Date.now()).toBeLessThan(2 * 60 * 60_000 + 60_000);

    expect((await activity(t.organizationId)).map((a) => a.action)).toEqual(Array(5).fill("Welcome and away messages saved"));
  });

  it("refuses a bad time, overlapping ranges, a bad holiday or a message without text with 422 and the field, changing nothing", async () => {
    const t = await tenant("Pwani Tours");
    await call(t.key, "PATCH", "/api/v1/automations/settings", {
      welcome: { enabled: true, text: "Karibu Pwani Tours!" },
      hours: { monday: [{ from: "08:00", to: "17:00" }] },
    });
    const before = await storedSettings(t.organizationId);
    const answerBefore = await call(t.key, "GET", "/api/v1/automations/settings");
    const cases: [unknown, number, string, string | undefined][] = [
      [{ hours: { tuesday: [{ from: "25:00", to: "17:00" }] } }, 422, "invalid_automation", "hours.tuesday[0].from"],
      [{ hours: { tuesday: [{ from: "08:00", to: "5pm" }] } }, 422, "invalid_automation", "hours.tuesday[0].to"],
      [
        {
          hours: {
            wednesday: [
              { from: "08:00", to: "12:00" },
              { from: "11:00", to: "15:00" },
            ],
          },
        },
        422,
        "invalid_automation",
        "hours.wednesday[1]",
      ],
      [{ hours: { thursday: Array(5).fill({ from: "08:00", to: "09:00" }) } }, 422, "invalid_automation", "hours.thursday"],
      [{ holidays: ["2026-12-25", "2026-02-30"] }, 422, "invalid_automation", "holidays[1]"],
      [{ welcome: { text: "" } }, 422, "invalid_automation", "welcome.text"],
      [{ away: { enabled: true } }, 422, "invalid_automation", "away.text"],
      [{ away: { enabled: true, text: "x".repeat(1025) } }, 422, "invalid_automation", "away.text"],
      [{ hours: { funday: [] } }, 400, "invalid_request", undefined],
      [{ hours: { monday: [{ from: 8, to: 17 }] } }, 400, "invalid_request", undefined],
      [{ timeZone: "Europe/Paris" }, 400, "invalid_request", undefined],
      [{}, 400, "invalid_request", undefined],
    ];
    for (const [body, status, code, field] of cases) {
      const answer = await call(t.key, "PATCH", "/api/v1/automations/settings", body);
      const what = JSON.stringify(body).slice(0, 100);
      expect(answer.status, what).toBe(status);
      expect(answer.body.code, what).toBe(code);
      expect(answer.body.field, what).toBe(field);
    }
    expect((await call(t.key, "PATCH", "/api/v1/automations/settings", cases[0]![0])).body.message).toBe(
      "hours.tuesday[0].from: Write times as HH:MM, from 00:00 to 24:00.",
    );
    expect(await storedSettings(t.organizationId)).toEqual(before);
    expect(await call(t.key, "GET", "/api/v1/automations/settings")).toEqual(answerBefore);
  });
});
