import { randomBytes } from "node:crypto";
import type { APIRequestContext, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL } from "./helpers";
import {
  bubble,
  composer,
  connectedBusiness,
  customerNumber,
  customerWrites,
  openConversation,
  sandboxMessages,
  send,
  sentMessage,
  textOf,
  thread,
} from "./inbox-helpers";

// Issue 44's browser test: a business sets up keyword rules and an away message from the Automations
// pages (JavaScript on and off), a customer writing through the Meta sandbox gets the right answers, is
// handed to a person when they ask for "mtu", and hears nothing from the bot while a member answers.

/** A new keyword rule through its form. */
async function addRule(page: Page, rule: { name: string; match: string; keywords: string; reply: string; assign?: string; flow?: string }) {
  await page.goto("/automations");
  await page.getByRole("link", { name: "New rule" }).click();
  await expect(page).toHaveURL(/\/automations\/new$/);
  await page.getByRole("textbox", { name: "Name", exact: true }).fill(rule.name);
  await page.getByRole("radio", { name: new RegExp(`^${rule.match} `) }).check();
  await page.getByRole("textbox", { name: "Keywords", exact: true }).fill(rule.keywords);
  await page.getByRole("textbox", { name: "Reply", exact: true }).fill(rule.reply);
  if (rule.assign) await page.getByLabel("Assign the conversation to").selectOption({ label: rule.assign });
  if (rule.flow) await page.getByLabel("Start a chatbot flow").selectOption({ label: rule.flow });
  await page.getByRole("button", { name: "Create rule" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Rule “${rule.name}” added.` })).toBeVisible();
}

/** How many of the sandbox's received messages to `to` carry `text`. */
async function countTo(request: APIRequestContext, phoneNumberId: string, to: string, text: string) {
  return (await sandboxMessages(request, phoneNumberId)).filter((m) => m.to.replace(/\D/g, "") === to && textOf(m).includes(text)).length;
}

test("keyword rules and an away message answer a customer, who is handed to a person on asking for mtu", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(180_000);
  const { phoneNumberId, user } = await connectedBusiness(page, request);
  const owner = `${user.firstName} ${user.lastName}`;

  await addRule(page, {
    name: "Bei",
    match: "Contains",
    keywords: "bei\nprice",
    reply: "Bei zetu: Starter KES 2,000 kwa mwezi.",
  });
  await addRule(page, {
    name: "Mtu",
    match: "Contains",
    keywords: "mtu\nagent\nbinadamu",
    reply: "Sawa, nakuunganisha na mwenzetu sasa hivi.",
    assign: "The least busy member (hand over to a person)",
  });
  // The list shows both, in order, with what they do.
  await page.goto("/automations");
  const rules = page.getByRole("table");
  await expect(rules.getByRole("row").nth(1)).toContainText("Bei");
  await expect(rules.getByRole("row").nth(2)).toContainText("Hands the conversation to the least busy member");

  // Away: holiday mode closes every hour, so the away message answers what no rule matches.
  await page.goto("/automations/hours");
  await page.getByLabel("Send an away message outside business hours").check();
  await page.getByLabel("Away message text").fill("Tumefunga kwa sasa. Tutakujibu kesho asubuhi.");
  await page.getByLabel("Holiday mode: closed until I turn it off").check();
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "Welcome and away messages saved." })).toBeVisible();
  await expect(page.getByText("Closed now: holiday mode is on.")).toBeVisible();

  const from = customerNumber();
  const name = `Wanjiku Kamau ${randomBytes(2).toString("hex")}`;
  await customerWrites(request, { phoneNumberId, from, name, text: "Bei ya Starter ni ngapi?" });
  await sentMessage(request, phoneNumberId, "Bei zetu: Starter KES 2,000 kwa mwezi.");
  await customerWrites(request, { phoneNumberId, from, name, text: "Habari za jioni" });
  await sentMessage(request, phoneNumberId, "Tumefunga kwa sasa. Tutakujibu kesho asubuhi.");

  // "mtu": the rule answers and hands the conversation to the owner, the only member.
  await customerWrites(request, { phoneNumberId, from, name, text: "Nataka kuongea na MTU tafadhali" });
  await sentMessage(request, phoneNumberId, "Sawa, nakuunganisha na mwenzetu sasa hivi.");
  await openConversation(page, javaScriptEnabled, name);
  await expect(thread(page)).toContainText(`Handed to ${owner}: a keyword rule handed it over (Mtu)`);
  await expect(bubble(page, "Sawa, nakuunganisha")).toContainText("Automation: Mtu");

  // The owner answers; the bot says nothing more while they hold the conversation.
  await composer(page)
    .getByLabel("Message", { exact: true })
    .fill("Habari Wanjiku, mimi ni " + user.firstName + ". Nikusaidie vipi?");
  await send(page, javaScriptEnabled);
  await sentMessage(request, phoneNumberId, "Nikusaidie vipi?");
  await customerWrites(request, { phoneNumberId, from, name, text: "Bei ya Business je?" });
  // Another customer's same words are answered: the queue has run past the first customer's message.
  const other = customerNumber();
  await customerWrites(request, { phoneNumberId, from: other, name: `Otieno ${randomBytes(2).toString("hex")}`, text: "bei?" });
  await expect.poll(() => countTo(request, phoneNumberId, other, "Bei zetu"), { timeout: 30_000 }).toBe(1);
  expect(await countTo(request, phoneNumberId, from, "Bei zetu")).toBe(1);
  expect(await countTo(request, phoneNumberId, from, "Tumefunga")).toBe(1);
});

test("the assistant answers from the knowledge base, hands over on mtu, and stays silent while a person answers", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(180_000);
  const { phoneNumberId, user } = await connectedBusiness(page, request);
  const owner = `${user.firstName} ${user.lastName}`;

  await page.goto("/automations");
  await page.getByRole("link", { name: "Assistant settings" }).click();
  await page.getByRole("link", { name: "Knowledge base" }).first().click();
  await expect(page).toHaveURL(/\/automations\/knowledge$/);
  await page.getByRole("textbox", { name: "Title" }).fill("Kulipa kwa M-Pesa");
  await page
    .getByRole("textbox", { name: "Text" })
    .fill("Lipa kupitia Paybill 522522, akaunti ni namba yako ya simu. Malipo yanaonekana ndani ya dakika moja.");
  await page.getByRole("button", { name: "Add article" }).click();
  await expect(page.getByRole("status").filter({ hasText: "“Kulipa kwa M-Pesa” is added." })).toBeVisible();

  await page.goto("/automations/assistant");
  await page.getByLabel("The assistant answers").check();
  await page.getByRole("group", { name: "Numbers it answers on" }).getByRole("checkbox").first().check();
  await page.getByRole("textbox", { name: "Handover message" }).fill("Nakuunganisha na mwenzetu sasa hivi.");
  await page.getByRole("textbox", { name: "Base URL" }).fill(`${BASE_URL}/sandbox/llm/v1`);
  await page.getByRole("textbox", { name: "Model" }).fill("jumbe-sandbox-1");
  // Any key but the sandbox's magic sk-invalid (sandbox/README.md).
  await page.getByLabel("API key").fill("sk-sandbox-halima");
  await page.getByRole("button", { name: "Save the assistant" }).click();
  await expect(page.getByRole("status").filter({ hasText: "The assistant's settings are saved." })).toBeVisible();

  const from = customerNumber();
  const name = `Halima Said ${randomBytes(2).toString("hex")}`;
  await customerWrites(request, { phoneNumberId, from, name, text: "Nitalipaje kwa M-Pesa?" });
  await sentMessage(request, phoneNumberId, "522522");

  await customerWrites(request, { phoneNumberId, from, name, text: "nataka kuongea na mtu" });
  await sentMessage(request, phoneNumberId, "Nakuunganisha na mwenzetu sasa hivi.");
  await openConversation(page, javaScriptEnabled, name);
  await expect(thread(page)).toContainText(`Handed to ${owner}: the customer asked for a person`);
  await expect(bubble(page, "522522")).toContainText("AI assistant (automation)");

  await composer(page).getByLabel("Message", { exact: true }).fill(`Habari Halima, mimi ni ${user.firstName}. Nikusaidie vipi?`);
  await send(page, javaScriptEnabled);
  await sentMessage(request, phoneNumberId, "Nikusaidie vipi?");
  await customerWrites(request, { phoneNumberId, from, name, text: "Paybill ni ipi tena?" });
  const other = customerNumber();
  await customerWrites(request, { phoneNumberId, from: other, name: `Baraka ${randomBytes(2).toString("hex")}`, text: "Paybill ni ipi?" });
  await expect.poll(() => countTo(request, phoneNumberId, other, "522522"), { timeout: 30_000 }).toBe(1);
  expect(await countTo(request, phoneNumberId, from, "522522")).toBe(1);
  expect(await countTo(request, phoneNumberId, from, "Nakuunganisha")).toBe(1);
});

/** Adds a step to the flow open on the page: its kind chosen by the GET form, then its own form. */
async function addStep(page: Page, kind: string, fill: () => Promise<void>) {
  await page.getByLabel("Add a step").selectOption({ label: kind });
  await page.getByRole("button", { name: "Choose" }).click();
  await fill();
  await page.getByRole("button", { name: "Add the step" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Step saved." })).toBeVisible();
}

test("a three-step flow built without drawing takes a customer through its questions, started by a keyword", async ({ page, request }) => {
  test.setTimeout(180_000);
  const { phoneNumberId } = await connectedBusiness(page, request);

  await page.goto("/automations/flows");
  await page.getByRole("link", { name: "New flow" }).first().click();
  await page.getByRole("textbox", { name: "Name" }).fill("Bima ya haraka");
  await page.getByRole("button", { name: "Create the flow" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Flow “Bima ya haraka” added." })).toBeVisible();

  await addStep(page, "Ask a question", async () => {
    await page.getByRole("textbox", { name: "Question" }).fill("Karibu! Jina lako ni nani?");
    await page.getByRole("textbox", { name: "Save the answer as" }).fill("jina");
  });
  await addStep(page, "Ask a question", async () => {
    await page.getByRole("textbox", { name: "Question" }).fill("Asante {{jina}}. Bima ya nini?");
    await page.getByLabel("The customer answers with").selectOption({ label: "Buttons" });
    await page.getByRole("textbox", { name: "Choices" }).fill("Gari\nNyumba\nAfya");
    await page.getByLabel("Accept").selectOption({ label: "one of the choices" });
    await page.getByRole("textbox", { name: "Save the answer as" }).fill("aina");
  });
  await addStep(page, "Send a message", async () => {
    await page.getByRole("textbox", { name: "Text" }).fill("Sawa {{jina}}, tutakupigia leo kuhusu bima ya {{aina}}.");
  });
  await expect(page.getByText("3 of 25 steps.")).toBeVisible();
  await page.getByRole("button", { name: "Publish" }).click();
  await expect(page.getByRole("status").filter({ hasText: "“Bima ya haraka” version 1 is live." })).toBeVisible();

  await addRule(page, { name: "Bima", match: "Contains", keywords: "bima\ninsurance", reply: "", flow: "Bima ya haraka" });

  const from = customerNumber();
  const name = `Mercy Atieno ${randomBytes(2).toString("hex")}`;
  await customerWrites(request, { phoneNumberId, from, name, text: "Nataka bima" });
  await sentMessage(request, phoneNumberId, "Karibu! Jina lako ni nani?");
  await customerWrites(request, { phoneNumberId, from, name, text: "Mercy" });
  const buttons = await sentMessage(request, phoneNumberId, "Asante Mercy. Bima ya nini?");
  expect(buttons.type).toBe("interactive");
  // Not one of the choices: asked again; then a choice.
  await customerWrites(request, { phoneNumberId, from, name, text: "Ndege" });
  await expect.poll(() => countTo(request, phoneNumberId, from, "Asante Mercy. Bima ya nini?"), { timeout: 30_000 }).toBe(2);
  await customerWrites(request, { phoneNumberId, from, name, text: "Nyumba" });
  await sentMessage(request, phoneNumberId, "Sawa Mercy, tutakupigia leo kuhusu bima ya Nyumba.");

  // The flow's page counts the completed conversation.
  await page.goto("/automations/flows");
  await expect(page.getByRole("row", { name: /Bima ya haraka/ })).toContainText("1 completed");
});
