import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { users } from "~/.server/infrastructure/db/schema";
import { hashPassword } from "~/.server/domains/auth/password";
import { createRule, listRules, setRuleEnabled } from "~/.server/domains/automations/rules";
import { readAutomationSettings, saveAutomationSettings } from "~/.server/domains/automations/settings";
import { openingState } from "~/.server/domains/automations/page";
import { AUTOMATION_MESSAGES } from "~/lib/schemas/automations-rules";
import * as list from "~/routes/app/automations/index";
import * as rulePage from "~/routes/app/automations/rule";
import * as hours from "~/routes/app/automations/hours";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie, uniqueEmail } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";
import { formRequest, getRequest, run } from "../support/http";

// Issue 44's pages: the keyword rules in their order (/automations), a rule's form and its "try it"
// (/automations/new, /automations/:id), the welcome and away messages with the hours
// (/automations/hours). Owners and admins change them; every member reads them.

const LIST = "/automations";
const NEW = "/automations/new";
const HOURS = "/automations/hours";
const NOBODY = "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f";

/** An organisation with its owner signed in, an agent and a viewer, and one connected number. */
async function organisation(name = "Nyota Savings Sacco") {
  const owner = await createVerifiedUser({ businessName: name });
  const organizationId = owner.organization.id;
  const member = async (role: "agent" | "viewer", firstName: string) => {
    const email = uniqueEmail(role);
    const [user] = await db()
      .insert(users)
      .values({
        organizationId,
        email,
        firstName,
        lastName: "Otieno",
        orgRole: role,
        passwordHash: await hashPassword("Member#Pass12"),
        isVerified: true,
      })
      .returning();
    return { id: user!.id, cookie: await signedInCookie(email, "Member#Pass12") };
  };
  const digits = String(randomInt(100_000_000, 999_999_999));
  const { phone } = await connectedNumber(organizationId, {
    wabaId: `w${digits}`,
    phoneNumberId: `p${digits}`,
    display: `+254 7${digits}`,
  });
  return {
    organizationId,
    ownerId: owner.user.id,
    actor: { organizationId, userId: owner.user.id },
    cookie: await signedInCookie(owner.email, owner.password),
    agent: await member("agent", "Brian"),
    viewer: await member("viewer", "Peter"),
    phoneNumberId: phone.phoneNumberId,
  };
}

const post = (
  handler: typeof list.action | typeof rulePage.action | typeof hours.action,
  path: string,
  cookie: string,
  fields: Record<string, string>,
  id?: string,
) => run(handler, formRequest(path, fields, { cookie }), { params: id ? { id } : {} });

const stored = (organizationId: string) =>
  rawQuery<{
    id: string;
    name: string;
    match_type: string;
    keywords: string[];
    enabled: boolean;
    actions: unknown;
    phone_number_id: string | null;
  }>(
    `select id, name, match_type, keywords, enabled, actions, phone_number_id from automation_rules where organization_id = $1 order by position, created_at`,
    [organizationId],
  );

const priceForm = {
  intent: "save",
  name: "Prices",
  matchType: "contains",
  keywords: "bei\nprice\n\n  bei gani  ",
  threshold: "0.8",
  phoneNumberId: "",
  cooldownMinutes: "0",
  reply: "Bei zetu: Starter KES 2,000 kwa mwezi.",
  addTags: "asked-price, lead",
  removeTags: "",
  assignTo: "",
};

describe("the rules' pages", () => {
  it("creates a rule through its form, lists it with what it does, and changes it", async () => {
    const t = await organisation();
    const empty = await run(list.loader, getRequest(LIST, { cookie: t.cookie }));
    expect(empty.status).toBe(200);
    expect(empty.data).toMatchObject({ rules: [], canManage: true, welcomeEnabled: false, awayEnabled: false });
    // The empty page explains rules with an example.
    const page = await appFetch(getRequest(LIST, { cookie: t.cookie, headers: { accept: "text/html" } }));
    const html = (await page.text()).replace(/<!-- -->/g, "");
    expect(page.status).toBe(200);
    expect(html).toContain("No keyword rules yet.");
    expect(html).toContain('href="/automations/new"');
    expect(html).toContain('href="/automations/hours"');

    const form = await run(rulePage.loader, getRequest(NEW, { cookie: t.cookie }));
    expect(form.data.choices.numbers).toEqual([{ id: t.phoneNumberId, label: expect.stringContaining("+2547") }]);
    expect(form.data.choices.members.map((m: { name: string }) => m.name).sort()).toEqual(["Brian Otieno", "Test User"]);

    const created = await post(rulePage.action, NEW, t.cookie, { ...priceForm, phoneNumberId: t.phoneNumberId, assignTo: t.agent.id });
    expect(created.status).toBe(302);
    expect(created.location).toBe(LIST);
    expect(created.setCookies.join(";")).toContain("toast");
    const [rule] = await stored(t.organizationId);
    expect(rule).toMatchObject({
      name: "Prices",
      match_type: "contains",
      keywords: ["bei", "price", "bei gani"],
      enabled: true,
      phone_number_id: t.phoneNumberId,
      actions: [
        { type: "reply", text: priceForm.reply },
        { type: "tags", add: ["asked-price", "lead"], remove: [] },
        { type: "assign", userId: t.agent.id },
      ],
    });

    const listed = await run(list.loader, getRequest(LIST, { cookie: t.cookie }));
    expect(listed.data.rules).toEqual([
      expect.objectContaining({
        order: 1,
        name: "Prices",
        numberLabel: expect.stringContaining("+2547"),
        assigneeName: "Brian Otieno",
        firedCount: 0,
        lastFiredAt: null,
      }),
    ]);
    const drawn = (await (await appFetch(getRequest(LIST, { cookie: t.cookie, headers: { accept: "text/html" } }))).text()).replace(
      /<!-- -->/g,
      "",
    );
    for (const text of [
      "Prices",
      "bei, price, bei gani",
      "Replies: “Bei zetu: Starter KES 2,000 kwa mwezi.”",
      "Adds tags: asked-price, lead",
      "Assigns to Brian Otieno",
      "Never",
    ])
      expect(drawn).toContain(text.replace(/&/g, "&amp;"));
    expect(drawn).toContain(`href="/automations/${rule!.id}"`);

    // Its page shows it as saved; a change is saved in place.
    const editing = await run(rulePage.loader, getRequest(`/automations/${rule!.id}`, { cookie: t.cookie }), { params: { id: rule!.id } });
    expect(editing.data.values).toMatchObject({
      name: "Prices",
      keywords: "bei\nprice\nbei gani",
      addTags: "asked-price, lead",
      assignTo: t.agent.id,
      phoneNumberId: t.phoneNumberId,
      threshold: "0.8",
    });
    const changed = await post(
      rulePage.action,
      `/automations/${rule!.id}`,
      t.cookie,
      {
        ...priceForm,
        name: "Bei",
        matchType: "fuzzy",
        threshold: "0.85",
        keywords: "balance",
        reply: "",
        addTags: "salio",
        cooldownMinutes: "30",
      },
      rule!.id,
    );
    expect(changed.status).toBe(302);
    const [after] = await listRules(t.organizationId);
    expect(after).toMatchObject({
      id: rule!.id,
      name: "Bei",
      matchType: "fuzzy",
      threshold: expect.closeTo(0.85, 5),
      cooldownMinutes: 30,
      phoneNumberId: null,
      actions: [{ type: "tags", add: ["salio"], remove: [] }],
    });
    const logged = await rawQuery<{ action: string; details: string }>(
      `select action, details from activity_logs where organization_id = $1 and action like 'Automation rule%' order by created_at, id`,
      [t.organizationId],
    );
    expect(logged.map((r) => `${r.action}: ${r.details}`)).toEqual(["Automation rule added: Prices", "Automation rule changed: Bei"]);
  });

  it("moves, turns off and on, and deletes a rule (once confirmed) through the list's forms", async () => {
    const t = await organisation();
    const a = await createRule(t.actor, { name: "General", matchType: "contains", keywords: ["loan"], reply: "General loans" });
    const b = await createRule(t.actor, {
      name: "School fees",
      matchType: "contains",
      keywords: ["school fees loan"],
      reply: "School fees",
    });
    const names = async () => (await stored(t.organizationId)).map((r) => `${r.name}${r.enabled ? "" : " (off)"}`);

    expect(await post(list.action, LIST, t.cookie, { intent: "move", id: b.id, direction: "up" })).toMatchObject({
      status: 302,
      location: LIST,
    });
    expect(await names()).toEqual(["School fees", "General"]);
    // Already first: nothing moves.
    expect((await post(list.action, LIST, t.cookie, { intent: "move", id: b.id, direction: "up" })).status).toBe(302);
    expect(await names()).toEqual(["School fees", "General"]);
    expect((await post(list.action, LIST, t.cookie, { intent: "move", id: b.id, direction: "sideways" })).status).toBe(400);

    expect((await post(list.action, LIST, t.cookie, { intent: "disable", id: a.id })).status).toBe(302);
    expect(await names()).toEqual(["School fees", "General (off)"]);
    expect((await post(list.action, LIST, t.cookie, { intent: "enable", id: a.id })).status).toBe(302);
    expect(await names()).toEqual(["School fees", "General"]);

    const asking = await run(list.loader, getRequest(`${LIST}?confirm=delete&rule=${a.id}`, { cookie: t.cookie }));
    expect(asking.data.deleting).toEqual({ id: a.id, name: "General" });
    const unconfirmed = await post(list.action, LIST, t.cookie, { intent: "delete", id: a.id });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.data.toast.message).toBe(AUTOMATION_MESSAGES.confirmFirst);
    expect(await names()).toEqual(["School fees", "General"]);
    expect((await post(list.action, LIST, t.cookie, { intent: "delete", id: a.id, confirm: "yes" })).status).toBe(302);
    expect(await names()).toEqual(["School fees"]);
    expect((await post(list.action, LIST, t.cookie, { intent: "publish", id: b.id })).status).toBe(400);
  });

  it("shows the rules to agents and viewers without a way to change them, and refuses their posts", async () => {
    const t = await organisation();
    const rule = await createRule(t.actor, { name: "Prices", matchType: "contains", keywords: ["bei"], reply: "Bei zetu" });
    const before = await stored(t.organizationId);
    for (const who of [t.agent, t.viewer]) {
      const seen = await run(list.loader, getRequest(`${LIST}?confirm=delete&rule=${rule.id}`, { cookie: who.cookie }));
      expect(seen.status).toBe(200);
      expect(seen.data).toMatchObject({ canManage: false, deleting: null, rules: [expect.objectContaining({ name: "Prices" })] });
      const html = (await (await appFetch(getRequest(LIST, { cookie: who.cookie, headers: { accept: "text/html" } }))).text()).replace(
        /<!-- -->/g,
        "",
      );
      expect(html).toContain("Prices");
      expect(html).not.toContain('name="intent"');
      expect(html).not.toContain('href="/automations/new"');
      expect((await run(hours.loader, getRequest(HOURS, { cookie: who.cookie }))).data.canManage).toBe(false);
      // Every change is refused by the page's guard (the refusal page answers 403)...
      for (const [handler, path, fields, id] of [
        [list.action, LIST, { intent: "disable", id: rule.id }],
        [list.action, LIST, { intent: "move", id: rule.id, direction: "down" }],
        [list.action, LIST, { intent: "delete", id: rule.id, confirm: "yes" }],
        [rulePage.action, NEW, priceForm],
        [rulePage.action, `/automations/${rule.id}`, { ...priceForm, name: "Mine now" }, rule.id],
        [rulePage.action, `/automations/${rule.id}`, { intent: "try", sample: "bei" }, rule.id],
        [hours.action, HOURS, { welcomeEnabled: "on", welcomeText: "Karibu!" }],
      ] as const) {
        const refused = await post(handler, path, who.cookie, fields, id);
        expect([refused.status, refused.location], `${path} ${fields.intent}`).toEqual([302, "/unauthorized"]);
      }
      // ...and the rule's pages are not theirs, through the whole application too.
      for (const path of [NEW, `/automations/${rule.id}`]) {
        const response = await appFetch(getRequest(path, { cookie: who.cookie, headers: { accept: "text/html" } }));
        expect([response.status, response.headers.get("location")], path).toEqual([302, "/unauthorized"]);
      }
      const routed = await appFetch(formRequest(LIST, { intent: "disable", id: rule.id }, { cookie: who.cookie }));
      expect([routed.status, routed.headers.get("location")]).toEqual([302, "/unauthorized"]);
    }
    expect(await stored(t.organizationId)).toEqual(before);
    expect((await readAutomationSettings(t.organizationId)).welcomeEnabled).toBe(false);
  });

  it("answers 404 for another organisation's rule or an unknown id, and changes nothing", async () => {
    const mine = await organisation();
    const theirs = await organisation("Pwani Tours");
    const foreign = await createRule(theirs.actor, { name: "Their prices", matchType: "contains", keywords: ["bei"], reply: "Theirs" });
    for (const id of [foreign.id, NOBODY, "not-an-id"]) {
      expect((await run(rulePage.loader, getRequest(`/automations/${id}`, { cookie: mine.cookie }), { params: { id } })).status, id).toBe(
        404,
      );
      expect((await post(rulePage.action, `/automations/${id}`, mine.cookie, { ...priceForm, name: "Mine" }, id)).status, id).toBe(404);
      expect((await post(rulePage.action, `/automations/${id}`, mine.cookie, { intent: "try", sample: "bei" }, id)).status, id).toBe(404);
      for (const fields of <Record<string, string>[]>[
        { intent: "disable" },
        { intent: "move", direction: "down" },
        { intent: "delete", confirm: "yes" },
      ])
        expect((await post(list.action, LIST, mine.cookie, { ...fields, id })).status, `${id} ${fields.intent}`).toBe(404);
      expect((await run(list.loader, getRequest(`${LIST}?confirm=delete&rule=${id}`, { cookie: mine.cookie }))).status).toBe(404);
    }
    // Through the application: the page's 404.
    const response = await appFetch(getRequest(`/automations/${foreign.id}`, { cookie: mine.cookie, headers: { accept: "text/html" } }));
    expect(response.status).toBe(404);
    expect(await stored(theirs.organizationId)).toMatchObject([{ name: "Their prices", enabled: true }]);
    expect(await stored(mine.organizationId)).toEqual([]);
  });

  it("says what is wrong at the field, the form as it was sent, and stores nothing", async () => {
    const t = await organisation();
    const unsafe = await post(rulePage.action, NEW, t.cookie, { ...priceForm, matchType: "regex", keywords: "^bei\n(a+)+$" });
    expect(unsafe.status).toBe(400);
    expect(unsafe.data.result.error).toEqual({ keywords: [AUTOMATION_MESSAGES.regexUnsafe("(a+)+$")] });
    expect(unsafe.data.result.initialValue).toMatchObject({ name: "Prices", matchType: "regex", keywords: "^bei\n(a+)+$" });
    const invalid = await post(rulePage.action, NEW, t.cookie, { ...priceForm, matchType: "regex", keywords: "bei(" });
    expect(invalid.data.result.error).toEqual({ keywords: [AUTOMATION_MESSAGES.regexInvalid("bei(")] });
    // The page draws it at the keywords' field.
    const drawn = await appFetch(
      formRequest(NEW, { ...priceForm, matchType: "regex", keywords: "(a+)+$" }, { cookie: t.cookie, headers: { accept: "text/html" } }),
    );
    const html = (await drawn.text()).replace(/<!-- -->/g, "");
    expect(drawn.status).toBe(400);
    expect(html).toMatch(/id="new-rule-keywords-error"[^>]*>[^<]*could take too long/);

    const cases: [Record<string, string>, Record<string, string[]>][] = [
      [{ name: " " }, { name: [AUTOMATION_MESSAGES.nameRequired] }],
      [{ matchType: "sounds_like" }, { matchType: [AUTOMATION_MESSAGES.matchType] }],
      [{ keywords: "\n \n" }, { keywords: [AUTOMATION_MESSAGES.keywordsNone] }],
      [{ threshold: "0.2" }, { threshold: [AUTOMATION_MESSAGES.threshold] }],
      [{ cooldownMinutes: "-5" }, { cooldownMinutes: [AUTOMATION_MESSAGES.cooldown] }],
      [{ reply: "", addTags: "" }, { reply: [AUTOMATION_MESSAGES.noAction] }],
      [{ reply: "a".repeat(4097) }, { reply: [AUTOMATION_MESSAGES.replyTooLong] }],
      [{ addTags: Array.from({ length: 11 }, (_, i) => `tag${i}`).join(",") }, { addTags: [AUTOMATION_MESSAGES.tags] }],
      // What only the server knows: refused by the domain at its field.
      [{ phoneNumberId: "999" }, { phoneNumberId: [AUTOMATION_MESSAGES.number] }],
      [{ assignTo: NOBODY }, { assignTo: [AUTOMATION_MESSAGES.assignee] }],
      [{ assignTo: t.viewer.id }, { assignTo: [AUTOMATION_MESSAGES.assignee] }],
      [{ keywords: "bei\nBei!" }, { keywords: [AUTOMATION_MESSAGES.keywordDuplicate("Bei!")] }],
    ];
    for (const [fields, errors] of cases) {
      const answer = await post(rulePage.action, NEW, t.cookie, { ...priceForm, ...fields });
      expect(answer.status, JSON.stringify(fields).slice(0, 60)).toBe(400);
      expect(answer.data.result.error, JSON.stringify(fields).slice(0, 60)).toEqual(errors);
    }
    expect(await stored(t.organizationId)).toEqual([]);
    // At its limits exactly.
    expect(
      (await post(rulePage.action, NEW, t.cookie, { ...priceForm, name: "n".repeat(80), reply: "r".repeat(4096), threshold: "0,5" }))
        .status,
    ).toBe(302);
    expect(await stored(t.organizationId)).toHaveLength(1);
  });

  it("takes the newer actions through the form without JavaScript: buttons, a contact field, the assistant after, and says what is wrong at their fields", async () => {
    const t = await organisation("Shamba Bora Agrovet");
    await rawQuery(`insert into contact_attributes (organization_id, key, label, type) values ($1, 'acres', 'Acres', 'number')`, [
      t.organizationId,
    ]);
    const form = await run(rulePage.loader, getRequest(NEW, { cookie: t.cookie }));
    expect(form.data.choices.fields).toEqual([{ key: "acres", label: "Acres" }]);
    const refused = async (fields: Record<string, string>) =>
      (await post(rulePage.action, NEW, t.cookie, { ...priceForm, ...fields })).data.result.error;
    expect(await refused({ buttons: "Gari\nNyumba\nAfya\nShamba" })).toEqual({ buttons: [AUTOMATION_MESSAGES.buttons] });
    expect(await refused({ fieldKey: "acres", fieldValue: "tano" })).toEqual({
      fieldValue: [expect.stringContaining("Acres")],
    });
    expect(await refused({ fieldKey: "county", fieldValue: "Nakuru" })).toEqual({ fieldKey: [AUTOMATION_MESSAGES.fieldKey] });
    expect(await refused({ webhookUrl: "https://8.8.8.8/shamba/hooks" })).toEqual({ webhookUrl: [AUTOMATION_MESSAGES.webhookNoSecret] });
    expect(await refused({ then: "oracle" })).toEqual({ then: [AUTOMATION_MESSAGES.then] });
    expect(await stored(t.organizationId)).toEqual([]);

    const created = await post(rulePage.action, NEW, t.cookie, {
      ...priceForm,
      buttons: "Starter\nBusiness",
      fieldKey: "acres",
      fieldValue: "3",
      then: "assistant",
    });
    expect(created.status).toBe(302);
    const [rule] = await stored(t.organizationId);
    expect(rule!.actions).toEqual([
      { type: "reply", text: priceForm.reply, buttons: ["Starter", "Business"] },
      { type: "tags", add: ["asked-price", "lead"], remove: [] },
      { type: "field", key: "acres", value: 3 },
      { type: "assistant" },
    ]);
    const edit = await run(rulePage.loader, getRequest(`/automations/${rule!.id}`, { cookie: t.cookie }), { params: { id: rule!.id } });
    expect(edit.data.values).toMatchObject({ buttons: "Starter\nBusiness", fieldKey: "acres", fieldValue: "3", then: "assistant" });
  });

  it("takes a list or an approved template through the form without JavaScript, and refuses a template that is not the organisation's", async () => {
    const t = await organisation("Kisii Banana Growers");
    await rawQuery(
      `insert into message_templates (organization_id, waba_id, name, language, category, status, components)
       values ($1, 'waba-kisii', 'ndizi_prices', 'sw', 'UTILITY', 'approved', $2::jsonb),
              ($1, 'waba-kisii', 'ndizi_offer', 'sw', 'MARKETING', 'approved', $3::jsonb)`,
      [
        t.organizationId,
        JSON.stringify([{ type: "BODY", text: "Bei ya ndizi leo: {{1}} kwa {{2}}." }]),
        JSON.stringify([
          { type: "HEADER", format: "IMAGE" },
          { type: "BODY", text: "Ofa!" },
        ]),
      ],
    );
    const form = await run(rulePage.loader, getRequest(NEW, { cookie: t.cookie }));
    // A template whose header needs a file is not offered: a rule has nothing to fill it with.
    expect(form.data.choices.templates).toEqual([{ value: "ndizi_prices|sw", name: "ndizi_prices", language: "sw" }]);
    const refused = async (fields: Record<string, string>) =>
      (await post(rulePage.action, NEW, t.cookie, { ...priceForm, reply: "", ...fields })).data.result.error;
    expect(await refused({ template: "ndizi_offer|sw" })).toEqual({ template: [AUTOMATION_MESSAGES.template] });
    expect(await refused({ template: "ndizi_prices|sw", templateParameters: "KES 120" })).toEqual({
      templateParameters: [AUTOMATION_MESSAGES.templateParameters(2)],
    });
    expect(await stored(t.organizationId)).toEqual([]);

    expect(
      (
        await post(rulePage.action, NEW, t.cookie, {
          ...priceForm,
          reply: "",
          template: "ndizi_prices|sw",
          templateParameters: "KES 120\nchana",
        })
      ).status,
    ).toBe(302);
    expect(
      (
        await post(rulePage.action, NEW, t.cookie, {
          ...priceForm,
          name: "Matawi",
          keywords: "tawi",
          reply: "Chagua tawi",
          listButton: "Matawi",
          listRows: "Kisii\nNyamira",
        })
      ).status,
    ).toBe(302);
    const rules = await stored(t.organizationId);
    expect(rules.map((r) => (r.actions as unknown[])[0])).toEqual([
      { type: "template", name: "ndizi_prices", language: "sw", parameters: ["KES 120", "chana"] },
      { type: "reply", text: "Chagua tawi", list: { button: "Matawi", rows: ["Kisii", "Nyamira"] } },
    ]);
  });

  it("tries a saved rule on a message: whether it matches, on which keyword, and whether an earlier rule answers first", async () => {
    const t = await organisation();
    const general = await createRule(t.actor, { name: "General", matchType: "contains", keywords: ["loan"], reply: "General loans" });
    const fees = await createRule(t.actor, {
      name: "School fees",
      matchType: "fuzzy",
      keywords: ["school fees", "karo"],
      reply: "School fees loans",
    });
    const tryIt = async (id: string, sample: string) =>
      (await post(rulePage.action, `/automations/${id}`, t.cookie, { intent: "try", sample }, id)).data;

    expect((await tryIt(fees.id, "Nataka kulipa KARO ya shule")).tried).toEqual({
      sample: "Nataka kulipa KARO ya shule",
      ad: null,
      matched: true,
      keyword: "karo",
      needsAd: null,
      enabled: true,
      earlier: null,
    });
    // A typo still matches the fuzzy rule; "loan" matches the rule before it, which answers first.
    expect((await tryIt(fees.id, "I need a schol fees loan")).tried).toMatchObject({
      keyword: "school fees",
      earlier: { id: general.id, name: "General", position: 1 },
    });
    expect((await tryIt(fees.id, "Habari yako")).tried).toMatchObject({ keyword: null, earlier: null });
    // An earlier rule that is off answers nothing; this one, off, says so.
    await setRuleEnabled(t.actor, general.id, false);
    await setRuleEnabled(t.actor, fees.id, false);
    expect((await tryIt(fees.id, "school fees loan")).tried).toMatchObject({ keyword: "school fees", enabled: false, earlier: null });
    const blank = await post(rulePage.action, `/automations/${fees.id}`, t.cookie, { intent: "try", sample: "  " }, fees.id);
    expect(blank.status).toBe(400);
    expect(blank.data.result.error).toEqual({ sample: [AUTOMATION_MESSAGES.sampleRequired] });
    // Not on a new rule's page.
    expect((await post(rulePage.action, NEW, t.cookie, { intent: "try", sample: "bei" })).status).toBe(400);

    // The page says it, without JavaScript: the post is answered with the page.
    await setRuleEnabled(t.actor, general.id, true);
    await setRuleEnabled(t.actor, fees.id, true);
    const drawn = await appFetch(
      formRequest(
        `/automations/${fees.id}`,
        { intent: "try", sample: "school fees loan" },
        { cookie: t.cookie, headers: { accept: "text/html" } },
      ),
    );
    const html = (await drawn.text()).replace(/<!-- -->/g, "").replace(/&quot;/g, '"');
    expect(drawn.status).toBe(200);
    expect(html).toContain("This rule matches, on the keyword “school fees”.");
    expect(html).toContain("But the rule “General” (number 1 in the order) matches it first, so that rule answers.");
    expect(await stored(t.organizationId)).toHaveLength(2);
  });
});

describe("the welcome and away messages page", () => {
  const form = (fields: Record<string, string> = {}) => ({
    welcomeEnabled: "on",
    welcomeText: "Karibu Nyota Sacco!",
    awayEnabled: "on",
    awayText: "Tumefunga kwa sasa. Tutakujibu kesho.",
    "from-1-0": "08:00",
    "to-1-0": "13:00",
    "from-1-1": "14:00",
    "to-1-1": "17:00",
    "from-5-0": "20:00",
    "to-5-0": "02:00",
    holidays: "2026-12-25\n\n2026-12-26 ",
    ...fields,
  });

  it("saves the messages, the hours and the holidays whole, and shows them again with the time zone and whether it is open", async () => {
    const t = await organisation();
    const first = await run(hours.loader, getRequest(HOURS, { cookie: t.cookie }));
    expect(first.data).toMatchObject({ canManage: true, canChangeZone: true, timeZone: "Africa/Nairobi", state: { state: "no_hours" } });

    const saved = await post(hours.action, HOURS, t.cookie, form());
    expect(saved).toMatchObject({ status: 302, location: HOURS });
    const settings = await readAutomationSettings(t.organizationId);
    expect(settings).toMatchObject({
      welcomeEnabled: true,
      welcomeText: "Karibu Nyota Sacco!",
      awayEnabled: true,
      holidays: ["2026-12-25", "2026-12-26"],
      holidayMode: false,
    });
    expect(settings.days[1]).toEqual([
      { from: "08:00", to: "13:00" },
      { from: "14:00", to: "17:00" },
    ]);
    expect(settings.days[5]).toEqual([{ from: "20:00", to: "02:00" }]);
    expect(settings.days[0]).toEqual([]);

    const again = await run(hours.loader, getRequest(HOURS, { cookie: t.cookie }));
    expect(again.data.values).toMatchObject({
      welcomeEnabled: "on",
      "from-1-1": "14:00",
      "to-5-0": "02:00",
      "from-2-0": "",
      holidays: "2026-12-25\n2026-12-26",
    });
    // Closed at some moment of the week: it says when it opens next.
    expect(again.data.state).toEqual(expect.objectContaining({ state: expect.stringMatching(/^(open|closed)$/) }));
    if (again.data.state.state === "closed") expect(again.data.state.opens).toEqual(expect.any(String));
    // In Nairobi (UTC+3): Monday 06:00 is closed until 08:00; Friday 23:30 is open past midnight; Saturday 03:00 closed until Monday.
    expect(openingState(settings, "Africa/Nairobi", new Date("2026-11-23T03:00:00Z"))).toEqual({
      state: "closed",
      opens: "2026-11-23T05:00:00.000Z",
    });
    expect(openingState(settings, "Africa/Nairobi", new Date("2026-11-27T20:30:00Z"))).toEqual({ state: "open" });
    expect(openingState(settings, "Africa/Nairobi", new Date("2026-11-28T00:00:00Z"))).toEqual({
      state: "closed",
      opens: "2026-11-30T05:00:00.000Z",
    });

    const html = (await (await appFetch(getRequest(HOURS, { cookie: t.cookie, headers: { accept: "text/html" } }))).text()).replace(
      /<!-- -->/g,
      "",
    );
    expect(html).toContain("Times are in your organisation&#x27;s time zone: Nairobi.");
    expect(html).toContain('href="/settings/organisation"');
    expect(html).toMatch(/Open now\.|Closed now\. Opens /);

    // Open at every hour, then holiday mode.
    const allWeek = Object.fromEntries(
      [0, 1, 2, 3, 4, 5, 6].flatMap((d) => [
        [`from-${d}-0`, "00:00"],
        [`to-${d}-0`, "00:00"],
      ]),
    );
    expect((await post(hours.action, HOURS, t.cookie, { ...form(), "from-1-1": "", "to-1-1": "", ...allWeek })).status).toBe(302);
    expect((await run(hours.loader, getRequest(HOURS, { cookie: t.cookie }))).data.state).toEqual({ state: "open" });
    expect(
      (await post(hours.action, HOURS, t.cookie, { ...form(), "from-1-1": "", "to-1-1": "", ...allWeek, holidayMode: "on" })).status,
    ).toBe(302);
    expect((await run(hours.loader, getRequest(HOURS, { cookie: t.cookie }))).data.state).toEqual({ state: "holiday_mode" });
  });

  it("refuses a bad time, half an opening time, overlapping times and a date that does not exist at their fields, changing nothing", async () => {
    const t = await organisation();
    await saveAutomationSettings(
      t.actor,
      {
        welcomeEnabled: true,
        welcomeText: "Karibu!",
        awayEnabled: false,
        awayText: "",
        days: { 0: [], 1: [{ from: "09:00", to: "17:00" }], 2: [], 3: [], 4: [], 5: [], 6: [] },
        holidays: [],
        holidayMode: false,
      },
      "Africa/Nairobi",
    );
    const before = await readAutomationSettings(t.organizationId);
    const cases: [Record<string, string>, Record<string, string[]>][] = [
      [{ "from-1-0": "25:00" }, { "from-1-0": [AUTOMATION_MESSAGES.time] }],
      [{ "to-3-1": "9am", "from-3-1": "08:00" }, { "to-3-1": [AUTOMATION_MESSAGES.time] }],
      [{ "to-1-1": "" }, { "to-1-1": [AUTOMATION_MESSAGES.rangeIncomplete] }],
      [{ welcomeText: " " }, { welcomeText: [AUTOMATION_MESSAGES.textRequired] }],
      [{ holidays: "25/12/2026" }, { holidays: [AUTOMATION_MESSAGES.holiday] }],
      // What the domain checks: said at the hours, and at the holidays.
      [{ "from-1-1": "12:00", "to-1-1": "15:00" }, { hours: ["Opening times of a day must not overlap."] }],
      [{ holidays: "2026-02-30" }, { holidays: [AUTOMATION_MESSAGES.holiday] }],
    ];
    for (const [fields, errors] of cases) {
      const answer = await post(hours.action, HOURS, t.cookie, form(fields));
      expect(answer.status, JSON.stringify(fields)).toBe(400);
      expect(answer.data.result.error, JSON.stringify(fields)).toEqual(errors);
    }
    expect(await readAutomationSettings(t.organizationId)).toEqual(before);
    // The page draws the bad time at its box.
    const drawn = await appFetch(formRequest(HOURS, form({ "from-1-0": "25:00" }), { cookie: t.cookie, headers: { accept: "text/html" } }));
    const html = (await drawn.text()).replace(/<!-- -->/g, "");
    expect(drawn.status).toBe(400);
    expect(html).toContain('id="automation-settings-from-1-0-error"');
    expect(html).toMatch(/name="from-1-0"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*name="from-1-0"/);
  });
});
