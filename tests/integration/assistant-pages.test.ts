import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { users } from "~/.server/infrastructure/db/schema";
import { hashPassword } from "~/.server/domains/auth/password";
import { addArticle } from "~/.server/domains/automations/assistant/knowledge";
import * as assistantPage from "~/routes/app/automations/assistant";
import * as knowledgePage from "~/routes/app/automations/knowledge";
import { startLlm, type LlmHarness } from "@jumbe/sandbox/llm/test-support";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie, uniqueEmail } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";
import { APP, formRequest, getRequest, run } from "../support/http";

// Issue 44's assistant pages, as a browser without JavaScript uses them: the settings form (the key
// never shown back), "Try it", the knowledge base with its uploads and its delete confirmed by URL.
// Owners and admins change them; viewers read them; another organisation's article is not found.

const ASSISTANT = "/automations/assistant";
const KNOWLEDGE = "/automations/knowledge";

let llm: LlmHarness;
beforeAll(async () => {
  llm = await startLlm();
});
afterAll(async () => {
  await llm.close();
});

async function organisation(name: string) {
  const owner = await createVerifiedUser({ businessName: name });
  const organizationId = owner.organization.id;
  const email = uniqueEmail("viewer");
  await db()
    .insert(users)
    .values({
      organizationId,
      email,
      firstName: "Peter",
      lastName: "Mwangi",
      orgRole: "viewer",
      passwordHash: await hashPassword("Member#Pass12"),
      isVerified: true,
    });
  const digits = String(randomInt(100_000_000, 999_999_999));
  const { phone } = await connectedNumber(organizationId, {
    wabaId: `w${digits}`,
    phoneNumberId: `p${digits}`,
    display: `+254 7${digits}`,
  });
  return {
    organizationId,
    actor: { organizationId, userId: owner.user.id },
    cookie: await signedInCookie(owner.email, owner.password),
    viewerCookie: await signedInCookie(email, "Member#Pass12"),
    phoneNumberId: phone.phoneNumberId,
  };
}

const settingsForm = (t: { phoneNumberId: string }, overrides: Record<string, string | string[]> = {}) => ({
  intent: "save",
  enabled: "on",
  phoneNumberIds: [t.phoneNumberId],
  instructions: "Jibu kwa ufupi.",
  baseUrl: llm.baseUrl,
  model: llm.model,
  apiKey: "sk-page-test-0000abcd",
  handoverText: "Mtu wa timu atakujibu hivi karibuni.",
  maxTurns: "6",
  monthlyCap: "1,500",
  inputPrice: "20",
  outputPrice: "80.50",
  ...overrides,
});

const html = async (path: string, cookie: string) => {
  const page = await appFetch(getRequest(path, { cookie, headers: { accept: "text/html" } }));
  return { status: page.status, text: (await page.text()).replace(/<!-- -->/g, "").replace(/&#x27;/g, "'") };
};

function multipart(path: string, cookie: string, file: { name: string; type: string; bytes: string }) {
  const body = new FormData();
  body.set("intent", "upload");
  body.set("file", new File([file.bytes], file.name, { type: file.type }));
  return new Request(`${APP}${path}`, { method: "POST", body, headers: { cookie, origin: APP, "user-agent": "vitest" } });
}

const articleCount = async (organizationId: string) =>
  (await rawQuery<{ n: number }>(`select count(*)::int as n from knowledge_articles where organization_id = $1`, [organizationId]))[0]!.n;

describe("the assistant's page", () => {
  it("saves the settings from a plain form post, never shows the key back, and answers Try it", async () => {
    const t = await organisation("Kahawa Sukari Cafe");
    const saved = await run(assistantPage.action, formRequest(ASSISTANT, settingsForm(t), { cookie: t.cookie }));
    expect(saved.status).toBe(302);
    const [row] = await rawQuery<{ enabled: boolean; monthly_cap_cents: string; output_price_cents: string; phone_number_ids: string[] }>(
      `select enabled, monthly_cap_cents, output_price_cents, phone_number_ids from assistant_settings where organization_id = $1`,
      [t.organizationId],
    );
    expect(row).toMatchObject({ enabled: true, phone_number_ids: [t.phoneNumberId] });
    expect(Number(row!.monthly_cap_cents)).toBe(150_000);
    expect(Number(row!.output_price_cents)).toBe(8_050);

    const page = await html(ASSISTANT, t.cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain("…abcd");
    expect(page.text).not.toContain("sk-page-test");

    // An empty key field keeps the saved key.
    expect((await run(assistantPage.action, formRequest(ASSISTANT, settingsForm(t, { apiKey: "" }), { cookie: t.cookie }))).status).toBe(
      302,
    );
    expect((await html(ASSISTANT, t.cookie)).text).toContain("…abcd");

    await addArticle(t.actor, { title: "Bei ya kahawa", body: "Kikombe cha kahawa ni KES 150. Chai ni KES 80." });
    const tried = await run(
      assistantPage.action,
      formRequest(ASSISTANT, { intent: "try", sample: "Kahawa ni bei gani?" }, { cookie: t.cookie }),
    );
    expect(tried.data).toMatchObject({ tried: { kind: "answer", text: expect.stringContaining("KES 150") } });
    const handed = await run(
      assistantPage.action,
      formRequest(ASSISTANT, { intent: "try", sample: "niongee na mtu" }, { cookie: t.cookie }),
    );
    expect(handed.data).toMatchObject({ tried: { kind: "handover", reason: "asked_for_person" } });
  });

  it("says what is wrong at the field and saves nothing", async () => {
    const t = await organisation("Bamburi Beach Hotel");
    const refused = await run(
      assistantPage.action,
      formRequest(ASSISTANT, settingsForm(t, { baseUrl: "http://10.1.1.1/v1" }), { cookie: t.cookie }),
    );
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.data)).toContain("baseUrl");
    expect(JSON.stringify(refused.data)).not.toContain("sk-page-test");
    const money = await run(assistantPage.action, formRequest(ASSISTANT, settingsForm(t, { monthlyCap: "lots" }), { cookie: t.cookie }));
    expect(money.status).toBe(400);
    expect(await rawQuery(`select 1 from assistant_settings where organization_id = $1`, [t.organizationId])).toEqual([]);
  });

  it("asks for the key again when the base URL moves to another host, at the key's field, and changes nothing", async () => {
    const t = await organisation("Origin Cafe Mombasa");
    expect((await run(assistantPage.action, formRequest(ASSISTANT, settingsForm(t), { cookie: t.cookie }))).status).toBe(302);
    expect((await html(ASSISTANT, t.cookie)).text).toContain("It is only sent to this address's host");

    const moved = settingsForm(t, { baseUrl: "http://127.0.0.9:11434/v1", apiKey: "" });
    const drawn = await appFetch(formRequest(ASSISTANT, moved, { cookie: t.cookie, headers: { accept: "text/html" } }));
    const text = (await drawn.text()).replace(/<!-- -->/g, "").replace(/&#x27;/g, "'");
    expect(drawn.status).toBe(400);
    expect(text).toContain('id="assistant-settings-apiKey-error"');
    expect(text).toContain("The endpoint's address changed: give its key again");
    const [row] = await rawQuery<{ base_url: string; api_key_last4: string }>(
      `select base_url, api_key_last4 from assistant_settings where organization_id = $1`,
      [t.organizationId],
    );
    expect(row).toEqual({ base_url: llm.baseUrl, api_key_last4: "abcd" });

    // Forgetting the key, or giving it again, saves the new address.
    const forgot = await run(assistantPage.action, formRequest(ASSISTANT, { ...moved, clearKey: "on" }, { cookie: t.cookie }));
    expect(forgot.status).toBe(302);
    expect((await html(ASSISTANT, t.cookie)).text).not.toContain("…abcd");
  });

  it("is read by a viewer, who cannot change it", async () => {
    const t = await organisation("Kitengela Glass");
    const page = await html(ASSISTANT, t.viewerCookie);
    expect(page.status).toBe(200);
    const posted = await run(assistantPage.action, formRequest(ASSISTANT, settingsForm(t), { cookie: t.viewerCookie }));
    expect(posted.status).not.toBe(200);
    expect(await rawQuery(`select 1 from assistant_settings where organization_id = $1`, [t.organizationId])).toEqual([]);
  });
});

describe("the knowledge page", () => {
  it("adds, lists, searches, edits and deletes (confirmed by URL) with plain form posts", async () => {
    const t = await organisation("Rongai Hardware");
    const added = await run(
      knowledgePage.action,
      formRequest(
        KNOWLEDGE,
        { intent: "add", title: "Delivery areas", body: "We deliver to Rongai, Karen and Langata." },
        { cookie: t.cookie },
      ),
    );
    expect(added.status).toBe(302);
    const [article] = await rawQuery<{ id: string }>(`select id from knowledge_articles where organization_id = $1`, [t.organizationId]);
    expect((await html(KNOWLEDGE, t.cookie)).text).toContain("Delivery areas");
    expect((await html(`${KNOWLEDGE}?q=Karen`, t.cookie)).text).toContain("Delivery areas");
    expect((await html(`${KNOWLEDGE}?q=Mombasa`, t.cookie)).text).not.toContain("Delivery areas");

    const edited = await run(
      knowledgePage.action,
      formRequest(
        KNOWLEDGE,
        { intent: "update", id: article!.id, title: "Delivery areas", body: "Rongai, Karen, Langata and Ngong." },
        { cookie: t.cookie },
      ),
    );
    expect(edited.status).toBe(302);
    const confirm = await html(`${KNOWLEDGE}?confirm=delete&article=${article!.id}`, t.cookie);
    expect(confirm.text).toContain('name="confirm" value="yes"');
    const unconfirmed = await run(
      knowledgePage.action,
      formRequest(KNOWLEDGE, { intent: "delete", id: article!.id }, { cookie: t.cookie }),
    );
    expect(unconfirmed.status).toBe(400);
    const deleted = await run(
      knowledgePage.action,
      formRequest(KNOWLEDGE, { intent: "delete", id: article!.id, confirm: "yes" }, { cookie: t.cookie }),
    );
    expect(deleted.status).toBe(302);
    expect(await articleCount(t.organizationId)).toBe(0);
  });

  it("answers 404 for another organisation's article, on the page and in the action", async () => {
    const t = await organisation("Ruiru Feeds");
    const other = await organisation("Limuru Feeds");
    const theirs = await addArticle(other.actor, { title: "Secret prices", body: "Dairy meal KES 2,400 a bag." });
    expect((await html(`${KNOWLEDGE}?edit=${theirs.id}`, t.cookie)).status).toBe(404);
    expect((await html(`${KNOWLEDGE}?confirm=delete&article=${theirs.id}`, t.cookie)).status).toBe(404);
    const deleting = await run(
      knowledgePage.action,
      formRequest(KNOWLEDGE, { intent: "delete", id: theirs.id, confirm: "yes" }, { cookie: t.cookie }),
    );
    expect(deleting.status).toBe(404);
    const editing = await run(
      knowledgePage.action,
      formRequest(KNOWLEDGE, { intent: "update", id: theirs.id, title: "Mine now", body: "x" }, { cookie: t.cookie }),
    );
    expect(editing.status).toBe(404);
    expect((await html(KNOWLEDGE, t.cookie)).text).not.toContain("Secret prices");
    expect(await articleCount(other.organizationId)).toBe(1);
  });

  it("uploads a CSV and a PDF as multipart; a bad file is a 4xx and stores nothing", async () => {
    const t = await organisation("Juja Water Refill");
    const csv = "question,answer\nDo you deliver water?,Yes: 20 litres for KES 250 in Juja.\nMnafungua lini?,Kila siku saa moja asubuhi.\n";
    const good = await run(knowledgePage.action, multipart(KNOWLEDGE, t.cookie, { name: "faq.csv", type: "text/csv", bytes: csv }));
    expect(good.status).toBe(302);
    expect(await articleCount(t.organizationId)).toBe(2);

    const bad = await run(
      knowledgePage.action,
      multipart(KNOWLEDGE, t.cookie, { name: "faq.csv", type: "text/csv", bytes: "question,answer\nOnly a question\n" }),
    );
    expect(bad.status).toBe(400);
    expect(bad.data).toMatchObject({ uploadError: expect.stringContaining("Line 2") });
    const scan = await run(
      knowledgePage.action,
      multipart(KNOWLEDGE, t.cookie, { name: "menu.pdf", type: "application/pdf", bytes: "%PDF-1.4\n%%EOF\n" }),
    );
    expect(scan.status).toBe(400);
    const image = await run(knowledgePage.action, multipart(KNOWLEDGE, t.cookie, { name: "logo.png", type: "image/png", bytes: "png" }));
    expect(image.status).toBe(415);
    expect(await articleCount(t.organizationId)).toBe(2);
  });
});

describe("the Billing page", () => {
  it("shows the assistant's month once it is configured, and not before", async () => {
    const t = await organisation("Kasarani Sports Shop");
    expect((await html("/billing", t.cookie)).text).not.toContain("AI assistant this month");
    await run(assistantPage.action, formRequest(ASSISTANT, settingsForm(t), { cookie: t.cookie }));
    const page = await html("/billing", t.cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain("AI assistant this month");
    expect(page.text).toContain("KES 1,500.00");
  });
});
