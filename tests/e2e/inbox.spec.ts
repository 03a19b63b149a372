import AxeBuilder from "@axe-core/playwright";
import { randomBytes } from "node:crypto";
import { deflateSync } from "node:zlib";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { readyBusiness } from "./campaign-helpers";
import { connectWhatsApp } from "./template-helpers";
import { BASE_URL, field, invitedAgent, randomIp, signIn, signUpAndVerifyViaApi, type TestUser } from "./helpers";
import {
  awaitRow,
  bubble,
  composer,
  connectedBusiness,
  customerNumber,
  customerWrites,
  expectSoon,
  list,
  numberOf,
  openConversation,
  row,
  sandboxMessages,
  send,
  sendButton,
  sentMessage,
  textOf,
  thread,
} from "./inbox-helpers";

// Issue 16: the inbox at /chat. Customers write through the Meta sandbox (its console's form, or its
// control API), the business answers from the thread; every form works with JavaScript on and off,
// and the live stream (JavaScript only) brings changes in without a reload.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes: Buffer) => {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type: string, data: Buffer) => {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
};

/** A real 4×4 PNG (RGB, one colour). */
function png() {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(4, 0);
  header.writeUInt32BE(4, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const line = Buffer.from([0, ...Array.from({ length: 4 }, () => [0x12, 0x8c, 0x7e]).flat()]);
  return Buffer.concat([
    Buffer.from("89504e470d0a1a0a", "hex"),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.concat([line, line, line, line]))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** axe's serious and critical findings on the page (axe runs as a script: with JavaScript on only). */
async function seriousViolations(page: Page) {
  const { violations, passes } = await new AxeBuilder({ page }).analyze();
  expect(passes.length).toBeGreaterThan(10);
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

const fullName = (user: TestUser) => `${user.firstName} ${user.lastName}`;

test("a customer writes from the sandbox console; the business answers, the ticks move, a blank message is refused", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const { phoneNumberId } = await readyBusiness(page, request).then(async (b) => ({
    ...b,
    phoneNumberId: await numberOf(request, b.wabaId),
  }));
  // 0003: the sandbox sends only "sent" for messages to this customer; the test drives the rest.
  const from = customerNumber("0003");
  const name = `Akinyi Odhiambo ${randomBytes(2).toString("hex")}`;

  // The customer writes, through the console's own form.
  await page.goto("/sandbox/meta/");
  const inbound = page.locator("form", { has: page.getByRole("button", { name: "Send inbound message" }) });
  await inbound.getByLabel("To business number").selectOption(phoneNumberId);
  await inbound.getByLabel("From (customer number)").fill(from);
  await inbound.getByLabel("Customer profile name").fill(name);
  await inbound.getByLabel("Message").fill("Habari, maji haijafika Kondele tangu jana.");
  await inbound.getByRole("button", { name: "Send inbound message" }).click();
  await expect(page.getByRole("status")).toContainText("Queued inbound message wamid.");

  // It shows in the list with the customer's name and an unread badge.
  await page.goto("/chat");
  await awaitRow(page, javaScriptEnabled, name);
  await expect(row(page, name)).toContainText("maji haijafika Kondele");
  await expect(row(page, name).getByLabel("1 unread")).toBeVisible();

  // Opened: the badge is gone, the window is open.
  await row(page, name).click();
  await expect(page.getByRole("region", { name: "Conversation" }).getByRole("heading", { level: 2 })).toHaveText(name);
  await expect(bubble(page, "maji haijafika Kondele")).toBeVisible();
  if (javaScriptEnabled) {
    // Beside the thread, the list arrives after the page on a wide screen.
    await expect(row(page, name)).toBeVisible();
    await expect(row(page, name).getByLabel(/unread/)).toHaveCount(0);
  } else {
    // Without scripts the thread's page carries no list (a phone shows one or the other): it links to it.
    await list(page).getByRole("link", { name: "All conversations" }).click();
    await expect(row(page, name)).toBeVisible();
    await expect(row(page, name).getByLabel(/unread/)).toHaveCount(0);
    await row(page, name).click();
  }
  await expect(page.getByTestId("window-state")).toHaveText(/^Open, /);

  // Blank is refused: with JavaScript the button waits for text; without, the server says so.
  const before = (await sandboxMessages(request, phoneNumberId)).length;
  if (javaScriptEnabled) {
    await expect(sendButton(page)).toBeDisabled();
    await page.getByLabel("Message", { exact: true }).fill("   ");
    await expect(sendButton(page)).toBeDisabled();
    await page.getByLabel("Message", { exact: true }).press("Enter");
  } else {
    await page.getByLabel("Message", { exact: true }).fill("   ");
    await sendButton(page).click();
    await expect(composer(page).getByRole("alert")).toHaveText("Write a message before sending.");
  }
  await expect(thread(page).locator("li[data-message]")).toHaveCount(1);

  // The reply.
  const reply = `Pole sana! Fundi yuko njiani ${randomBytes(2).toString("hex")}.`;
  await page.getByLabel("Message", { exact: true }).fill(reply);
  if (javaScriptEnabled) await expect(sendButton(page)).toBeEnabled();
  await send(page, javaScriptEnabled);
  await expect(bubble(page, reply)).toBeVisible();
  await expect(page.getByLabel("Message", { exact: true })).toHaveValue("");
  const sent = await sentMessage(request, phoneNumberId, reply);
  expect(sent).toMatchObject({ to: `+${from}`, type: "text" });
  expect((await sandboxMessages(request, phoneNumberId)).length).toBe(before + 1);

  // Meta's statuses move the ticks: sent → delivered → read.
  for (const [status, label] of [
    ["sent", "Sent"],
    ["delivered", "Delivered"],
    ["read", "Read"],
  ] as const) {
    const answer = await request.post("/sandbox/meta/control/status", {
      data: { phoneNumberId, wamid: sent.wamid, status, recipientId: from },
    });
    expect(answer.ok(), await answer.text()).toBe(true);
    await expectSoon(page, javaScriptEnabled, async () => {
      await expect(bubble(page, reply)).toHaveAttribute("data-status", status, { timeout: javaScriptEnabled ? 15_000 : 1000 });
      await expect(bubble(page, reply).getByLabel(label, { exact: true })).toBeVisible();
    });
  }
});

test("an image goes with its caption, a refused file sends nothing, and an internal note stays inside the team", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(90_000);
  const { user, phoneNumberId } = await connectedBusiness(page, request);
  const name = `Baraka Mwangi ${randomBytes(2).toString("hex")}`;
  const from = customerNumber();
  await customerWrites(request, { phoneNumberId, from, name, text: "Tuma picha ya mita tafadhali." });
  await openConversation(page, javaScriptEnabled, name);
  const message = page.getByLabel("Message", { exact: true });
  const attach = composer(page).getByLabel("Attach a file");

  // A text file named .png: refused at the attachment, nothing sent, nothing in the thread.
  await attach.setInputFiles({ name: "mita.png", mimeType: "image/png", buffer: Buffer.from("this is not a picture\n") });
  await message.fill("Hii hapa");
  await sendButton(page).click();
  await expect(composer(page).locator("#composer-attachment-error")).toContainText("The file was sent as image/png, but its bytes are not");
  await expect(attach).toHaveAttribute("aria-invalid", "true");
  await expect(thread(page).locator("li[data-message]")).toHaveCount(1);
  if (javaScriptEnabled) {
    // The customer writes again: the thread follows, and the refusal stays where it was said.
    await customerWrites(request, { phoneNumberId, from, name, text: "Bado naisubiri." });
    await expect(thread(page).locator("li[data-message]")).toHaveCount(2);
    await expect(composer(page).locator("#composer-attachment-error")).toContainText(
      "The file was sent as image/png, but its bytes are not",
    );
  }

  // A real PNG with a caption.
  const caption = `Mita yako ${randomBytes(2).toString("hex")}`;
  await attach.setInputFiles({ name: "mita.png", mimeType: "image/png", buffer: png() });
  await message.fill(caption);
  await sendButton(page).click();
  await expect(composer(page).locator("#composer-attachment-error")).toHaveCount(0);
  await expect(message).toHaveValue("");
  const picture = bubble(page, caption).locator("img");
  await expect(picture).toBeVisible();
  const src = await picture.getAttribute("src");
  expect(src).toMatch(/^\/chat\/media\/[0-9a-f-]{36}$/);
  const file = await page.request.get(src!);
  expect(file.status()).toBe(200);
  expect(file.headers()["content-type"]).toBe("image/png");
  expect((await file.body()).equals(png())).toBe(true);
  const sentImage = await sentMessage(request, phoneNumberId, caption);
  expect(sentImage.type).toBe("image");
  // The refused file never reached Meta: the image is the only message sent.
  expect((await sandboxMessages(request, phoneNumberId)).map((m) => m.type)).toEqual(["image"]);

  // An internal note: in the thread, marked as one, never sent.
  const note = `Mteja analipa kesho ${randomBytes(2).toString("hex")}`;
  await page.getByText("Add an internal note").click();
  await page.getByLabel("Note", { exact: true }).fill(note);
  await page.getByRole("button", { name: "Save note" }).click();
  const entry = thread(page).locator("li[data-entry]").filter({ hasText: note });
  await expect(entry).toBeVisible();
  await expect(entry).toContainText(`Note by ${fullName(user)}`);
  await expect(entry).toContainText("never sent to the customer");
  await expect(page.getByLabel("Note", { exact: true })).toHaveValue("");
  await expect(thread(page).locator("li[data-message]").filter({ hasText: note })).toHaveCount(0);
  // A reply after it reaches the sandbox; the note never does.
  await message.fill("Asante, tumepokea.");
  await send(page, javaScriptEnabled);
  await sentMessage(request, phoneNumberId, "Asante, tumepokea.");
  expect((await sandboxMessages(request, phoneNumberId)).filter((m) => textOf(m).includes(note))).toEqual([]);
});

test("the composer's saved answers: / lists them and Enter takes the first, the menu puts one in; a file over 16 MB waits", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(90_000);
  const { phoneNumberId } = await connectedBusiness(page, request);
  await page.goto("/chat/quick-replies");
  for (const [shortcut, body] of [
    ["hours", "We are open Monday to Friday, 8 am to 5 pm."],
    ["hodi", "Karibu! Tunakusikiliza."],
  ] as const) {
    await field(page, "Shortcut").fill(shortcut);
    await field(page, "Answer").fill(body);
    await page.getByRole("button", { name: "Add saved answer" }).click();
    await expect(page.getByText(`Saved answer /${shortcut} added.`)).toBeVisible();
  }
  const name = `Imani Wanjiku ${randomBytes(2).toString("hex")}`;
  await customerWrites(request, { phoneNumberId, from: customerNumber(), name, text: "Mko wazi saa ngapi?" });
  await openConversation(page, javaScriptEnabled, name);
  const message = page.getByLabel("Message", { exact: true });
  const menu = composer(page).getByLabel("Saved answer");

  if (javaScriptEnabled) {
    // `/` and the start of a shortcut list the answers it names; Enter takes the first.
    await message.fill("/ho");
    const suggestions = composer(page).getByRole("listbox", { name: "Saved answers" });
    await expect(suggestions.getByRole("option")).toHaveText([/\/hodi/, /\/hours/]);
    await message.fill("/hou");
    await expect(suggestions.getByRole("option")).toHaveText([/\/hours We are open/]);
    await message.press("Enter");
    await expect(message).toHaveValue("We are open Monday to Friday, 8 am to 5 pm.");
    await expect(suggestions).toHaveCount(0);
    await expect(thread(page).locator("li[data-message]")).toHaveCount(1);
    // The menu puts its answer in the message, in place of what was there, and is ready again.
    await menu.selectOption({ label: "/hodi" });
    await expect(message).toHaveValue("Karibu! Tunakusikiliza.");
    await expect(menu).toHaveValue("");
    await message.press("Enter");
  } else {
    // Without scripts the answer chosen is what the empty message sends.
    await menu.selectOption({ label: "/hodi" });
    await sendButton(page).click();
  }
  await expect(bubble(page, "Karibu! Tunakusikiliza.")).toBeVisible();
  await sentMessage(request, phoneNumberId, "Karibu! Tunakusikiliza.");
  if (!javaScriptEnabled) return;

  // A file over WhatsApp's 16 MB: said at once, before any upload, and Send waits for another.
  const attach = composer(page).getByLabel("Attach a file");
  await attach.setInputFiles({ name: "ripoti.pdf", mimeType: "application/pdf", buffer: Buffer.alloc(16 * 1024 * 1024 + 1) });
  await expect(composer(page)).toContainText("ripoti.pdf");
  await expect(composer(page).locator("#composer-attachment-error")).toHaveText("The file is over 16 MB, the most the inbox sends.");
  await expect(attach).toHaveAttribute("aria-invalid", "true");
  await expect(sendButton(page)).toBeDisabled();
  await attach.setInputFiles([]);
  await expect(composer(page).locator("#composer-attachment-error")).toHaveCount(0);
  await expect(composer(page)).toContainText("Attach a file");
  await expect(sendButton(page)).toBeDisabled();
});

test("a closed 24-hour window offers the approved templates, and the template shows as the customer saw it", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const { template, wabaId } = await readyBusiness(page, request);
  const phoneNumberId = await numberOf(request, wabaId);
  const name = `Chebet Koech ${randomBytes(2).toString("hex")}`;
  // Delivered 25 hours late: the window closed an hour ago.
  await customerWrites(request, { phoneNumberId, from: customerNumber(), name, text: "Maji yatarudi lini?", ageSeconds: 25 * 3600 });
  await openConversation(page, javaScriptEnabled, name);
  await expect(page.getByTestId("window-state")).toHaveText("Window closed");
  await expect(composer(page)).toHaveCount(0);
  const picker = page.getByTestId("template-picker");
  await expect(picker).toContainText("The 24-hour window closed");
  await expect(picker).toContainText("only a template can reach them now");

  const option = picker.locator("option", { hasText: template });
  await expect(option).toHaveCount(1);
  await picker.getByLabel("Template").selectOption((await option.getAttribute("value"))!);
  if (!javaScriptEnabled) await picker.getByRole("button", { name: "Choose" }).click();
  await expect(page).toHaveURL(/[?&]template=/);
  const form = page.getByRole("form", { name: "Send a template" });
  await expect(form).toContainText("Habari {{1}}, water will be off in your area on {{2}}.");
  await form.getByLabel("Value of {{1}}").fill("Chebet");
  await form.getByLabel("Value of {{2}}").fill("Thursday");
  await form.getByRole("button", { name: "Send template" }).click();

  const shown = bubble(page, "Habari Chebet, water will be off in your area on Thursday. Store enough water.");
  await expect(shown).toBeVisible();
  await expect(shown).not.toContainText("{{");
  const sent = await sentMessage(request, phoneNumberId, "Thursday");
  expect(sent.type).toBe("template");
  expect(sent.template?.name).toBe(template);
  expect(textOf(sent)).toContain("Chebet");
});

test("a conversation is assigned, taken by an agent, resolved and reopened, each with a line in the thread", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const { user, phoneNumberId } = await connectedBusiness(page, request);
  const owner = fullName(user);
  const { context, agent, name: agentName } = await invitedAgent(page, request, browser, javaScriptEnabled);
  try {
    const name = `Dorcas Njeri ${randomBytes(2).toString("hex")}`;
    await customerWrites(request, { phoneNumberId, from: customerNumber(), name, text: "Bili yangu ni kubwa mno." });
    const id = await openConversation(page, javaScriptEnabled, name);
    const line = (p: Page, text: string) => thread(p).locator("li[data-entry]").filter({ hasText: text });

    // The owner assigns it to themself.
    await page.getByLabel("Assign to").selectOption({ label: owner });
    await page.getByRole("button", { name: "Assign", exact: true }).click();
    await expect(line(page, `${owner} took this conversation`)).toBeVisible();

    // The agent takes it from them, then resolves it.
    await agent.goto(`/chat/${id}`);
    await agent.getByRole("button", { name: `Take from ${owner}` }).click();
    await expect(line(agent, `${agentName} took this conversation`)).toBeVisible();
    await expect(agent.getByRole("button", { name: "Let go" })).toBeVisible();
    await agent.getByRole("button", { name: "Resolve" }).click();
    await expect(line(agent, `${agentName} resolved this conversation`)).toBeVisible();
    await expect(agent.getByRole("button", { name: "Reopen" })).toBeVisible();

    // The Resolved filter shows it, the Open one does not (beside the thread with scripts; without,
    // the thread's pane links to the list).
    if (!javaScriptEnabled) await list(agent).getByRole("link", { name: "All conversations" }).click();
    const filters = agent.getByRole("navigation", { name: "Filter conversations" });
    await filters.getByRole("link", { name: "Resolved" }).click();
    await expect(agent).toHaveURL(/\/chat\?filter=resolved$/);
    await expect(row(agent, name)).toBeVisible();
    await expect(row(agent, name)).toContainText("Resolved");
    await filters.getByRole("link", { name: "Open" }).click();
    await expect(agent).toHaveURL(/\/chat\?filter=open$/);
    await expect(list(agent)).toContainText("No conversations here.");
    await expect(row(agent, name)).toHaveCount(0);

    // Reopened from the resolved list.
    await filters.getByRole("link", { name: "Resolved" }).click();
    await row(agent, name).click();
    await agent.getByRole("button", { name: "Reopen" }).click();
    await expect(line(agent, `${agentName} reopened this conversation`)).toBeVisible();

    // The owner sees every line, and unassigns it.
    await page.reload();
    for (const text of [`${owner} took`, `${agentName} took`, `${agentName} resolved`, `${agentName} reopened`])
      await expect(line(page, text)).toBeVisible();
    await expect(page.getByLabel("Assign to")).toHaveValue(/[0-9a-f-]{36}/);
    await page.getByLabel("Assign to").selectOption({ label: "Nobody" });
    await page.getByRole("button", { name: "Assign", exact: true }).click();
    await expect(line(page, `${owner} unassigned this conversation from ${agentName}`)).toBeVisible();
  } finally {
    await context.close();
  }
});

test("search finds a conversation by a word of its messages or the customer's name", async ({ page, request, javaScriptEnabled }) => {
  test.setTimeout(90_000);
  const { phoneNumberId } = await connectedBusiness(page, request);
  const tag = randomBytes(2).toString("hex");
  const akinyi = `Akinyi Atieno ${tag}`;
  const baraka = `Baraka Kiprop ${tag}`;
  await customerWrites(request, { phoneNumberId, from: customerNumber(), name: akinyi, text: "Is the borehole pump fixed yet?" });
  await customerWrites(request, { phoneNumberId, from: customerNumber(), name: baraka, text: "Nataka kulipa bili ya maji." });
  await page.goto("/chat");
  await awaitRow(page, javaScriptEnabled, akinyi);
  await awaitRow(page, javaScriptEnabled, baraka);
  const rows = list(page).locator("a[data-conversation]");
  await expect(rows).toHaveCount(2);

  const search = page.getByLabel("Search conversations");
  await search.fill("borehole");
  await search.press("Enter");
  await expect(page).toHaveURL(/\/chat\?q=borehole$/);
  await expect(list(page)).toContainText("Results for “borehole”");
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText(akinyi);

  await page.getByLabel("Search conversations").fill("Baraka");
  await page.getByLabel("Search conversations").press("Enter");
  await expect(page).toHaveURL(/\/chat\?q=Baraka$/);
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText(baraka);

  await page.getByLabel("Search conversations").fill("mchele");
  await page.getByLabel("Search conversations").press("Enter");
  await expect(list(page)).toContainText("No conversation matches your search.");
  await expect(rows).toHaveCount(0);
});

test("live: a colleague on the same conversation sees replies, new customers and typing without reloading", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.skip(!javaScriptEnabled, "the live stream is JavaScript's");
  test.setTimeout(120_000);
  const { user, phoneNumberId } = await connectedBusiness(page, request);
  const { context, agent, name: agentName } = await invitedAgent(page, request, browser, javaScriptEnabled);
  try {
    const tag = randomBytes(2).toString("hex");
    const name = `Esther Wambui ${tag}`;
    const from = customerNumber();
    await customerWrites(request, { phoneNumberId, from, name, text: "Habari, nina swali kuhusu bili." });
    const id = await openConversation(page, javaScriptEnabled, name);
    await agent.goto(`/chat/${id}`);
    await expect(agent.getByText("Live: new messages appear by themselves.")).toBeVisible();
    // A mark that a reload would wipe.
    await agent.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    await expect(page.getByTestId("presence")).toContainText(`${agentName} is viewing`);

    // The owner types: the agent sees it.
    await page.getByLabel("Message", { exact: true }).fill("Tunaangalia bili yako sasa hivi");
    await expect(agent.getByTestId("presence")).toContainText(`${fullName(user)} is typing`);

    // The owner's reply appears in the agent's thread.
    await page.getByLabel("Message", { exact: true }).press("Enter");
    await expect(bubble(page, "Tunaangalia bili yako sasa hivi")).toBeVisible();
    await expect(bubble(agent, "Tunaangalia bili yako sasa hivi")).toBeVisible();

    // The customer answers: in the agent's thread; a new customer: in the agent's list.
    await customerWrites(request, { phoneNumberId, from, name, text: "Sawa, nasubiri." });
    await expect(bubble(agent, "Sawa, nasubiri.")).toBeVisible();
    const newcomer = `Faith Chepkoech ${tag}`;
    await customerWrites(request, { phoneNumberId, from: customerNumber(), name: newcomer, text: "Habari za asubuhi" });
    await expect(row(agent, newcomer)).toBeVisible();
    await expect(row(agent, newcomer).getByLabel("1 unread")).toBeVisible();
    expect(await agent.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  } finally {
    await context.close();
  }
});

test("on a phone the list and a conversation take the screen in turn", async ({ page, request, javaScriptEnabled }) => {
  test.setTimeout(90_000);
  const { phoneNumberId } = await connectedBusiness(page, request);
  const name = `Grace Achieng ${randomBytes(2).toString("hex")}`;
  await customerWrites(request, { phoneNumberId, from: customerNumber(), name, text: "Nimehamia nyumba mpya." });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/chat");
  await awaitRow(page, javaScriptEnabled, name);
  const listPane = page.locator('section[aria-label="Conversations"]');
  const threadPane = page.locator('section[aria-label="Conversation"]');
  await expect(listPane).toBeVisible();
  await expect(threadPane).toBeHidden();

  await row(page, name).click();
  await expect(threadPane).toBeVisible();
  await expect(listPane).toBeHidden();
  await expect(bubble(page, "Nimehamia nyumba mpya.")).toBeVisible();
  await page.getByRole("link", { name: "Back to conversations" }).click();
  await expect(page).toHaveURL(/\/chat$/);
  await expect(listPane).toBeVisible();
  await expect(threadPane).toBeHidden();
  await expect(row(page, name)).toBeVisible();
});

test("another business gets 404 for the conversation; /chat and a conversation pass axe and stay inside the JavaScript budget", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
  clientIp,
}) => {
  test.setTimeout(90_000);
  const { phoneNumberId } = await connectedBusiness(page, request);
  const name = `Halima Yusuf ${randomBytes(2).toString("hex")}`;
  await customerWrites(request, { phoneNumberId, from: customerNumber(), name, text: "Nataka kujua salio langu." });
  const id = await openConversation(page, javaScriptEnabled, name);

  // Another organisation, in its own browser.
  const other = await signUpAndVerifyViaApi(request);
  const context = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  try {
    const stranger = await context.newPage();
    await signIn(stranger, other.email, other.password);
    const answer = await stranger.goto(`/chat/${id}`);
    expect(answer?.status()).toBe(404);
    await expect(stranger.getByText("This page does not exist.")).toBeVisible();
    await expect(stranger.getByText(name)).toHaveCount(0);
    expect((await stranger.request.get(`/chat/${id}`)).status()).toBe(404);
    await stranger.goto("/chat");
    await expect(row(stranger, name)).toHaveCount(0);
  } finally {
    await context.close();
  }

  if (!javaScriptEnabled) return;
  // axe runs as a script: with JavaScript on only.
  expect(await seriousViolations(page)).toEqual([]);
  await page.goto("/chat");
  await expect(row(page, name)).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  // Both are documents (decision 069): their own scripts only, measured as the page-weight benchmark
  // does (every script the document loads first, as a gzip-only client receives it), within the
  // budget of a page sent without React.
  const weight = "../../bench/page-weight.mjs";
  const http = "../../bench/lib/http.mjs";
  const { assetUrls, DOCUMENT_JS_BUDGET_GZIP } = (await import(/* @vite-ignore */ weight)) as {
    assetUrls: (html: string) => { scripts: string[] };
    DOCUMENT_JS_BUDGET_GZIP: number;
  };
  const { request: get } = (await import(/* @vite-ignore */ http)) as {
    request: (
      url: string,
      options: { headers: Record<string, string> },
    ) => Promise<{ status: number; headers: Record<string, string>; body: Buffer }>;
  };
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  for (const path of ["/chat", `/chat/${id}`]) {
    const document = await get(`${BASE_URL}${path}`, { headers: { Cookie: cookie, Accept: "text/html", "X-Forwarded-For": clientIp } });
    expect(document.status, path).toBe(200);
    const { scripts } = assetUrls(document.body.toString("utf8"));
    expect(
      scripts.map((src) => src.replace(/-[\w-]+\.js$/, ".js")),
      path,
    ).toEqual(["/assets/forms.js", "/assets/menus.js", "/assets/live.js"]);
    let bytes = 0;
    for (const src of scripts) {
      const script = await get(new URL(src, BASE_URL).href, { headers: { "Accept-Encoding": "gzip" } });
      expect(script.status, src).toBe(200);
      expect(script.headers["content-encoding"], src).toBe("gzip");
      bytes += script.body.length;
    }
    console.log(`${path === "/chat" ? "/chat" : "/chat/<id>"}: ${scripts.length} scripts, ${bytes} bytes of JavaScript (gzip)`);
    expect(bytes, `${path}'s JavaScript`).toBeLessThanOrEqual(DOCUMENT_JS_BUDGET_GZIP);
  }
});

test("with two business numbers the number filter gets a row of its own: the search box stays at least 160 px wide on a phone and on desktops", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password);
  const suffix = randomBytes(2).toString("hex");
  await connectWhatsApp(page, `Maji Kisumu ${suffix}`);
  await connectWhatsApp(page, `Maji Nakuru ${suffix}`);
  for (const width of [360, 1366, 1920]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/chat");
    await expect(page.getByRole("combobox", { name: "Business number" })).toBeVisible();
    const search = page.getByRole("searchbox", { name: "Search conversations" });
    await expect(search).toBeVisible();
    const box = await search.boundingBox();
    expect(box!.width, `the search box at ${width} px`).toBeGreaterThanOrEqual(160);
  }
});
