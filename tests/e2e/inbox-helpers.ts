import { randomBytes, randomInt } from "node:crypto";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect } from "./fixtures";
import { connectWhatsApp } from "./template-helpers";
import { signIn, signUpAndVerifyViaApi } from "./helpers";

// The inbox's browser tests' tools (issue 16), shared with the automations' (issue 44): a business with
// a connected number, customers writing through the Meta sandbox, what the sandbox received, and the
// thread's parts.

export interface SandboxMessage {
  wamid: string;
  to: string;
  type: string;
  template?: { name: string };
  body: Record<string, unknown>;
  statuses: string[];
}

/** The sandbox's phone number id of a WABA's (only) number. */
export async function numberOf(request: APIRequestContext, wabaId: string) {
  const state = (await (await request.get("/sandbox/meta/control/state")).json()) as { phoneNumbers: { id: string; wabaId: string }[] };
  const phone = state.phoneNumbers.find((p) => p.wabaId === wabaId);
  expect(phone, `the sandbox holds a number of ${wabaId}`).toBeTruthy();
  return phone!.id;
}

/** A business signed in on `page` with a connected number (no template). */
export async function connectedBusiness(page: Page, request: APIRequestContext) {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password);
  const wabaId = await connectWhatsApp(page, `Maji Kisumu ${randomBytes(2).toString("hex")}`);
  return { user, phoneNumberId: await numberOf(request, wabaId) };
}

/** A customer's number in digits; `ending` picks the sandbox's outcome for messages to it (0003: "sent" only). */
export const customerNumber = (ending = String(randomInt(1100, 10_000))) => `2547${randomInt(10, 100)}${randomInt(10, 100)}${ending}`;

/** A customer message through the sandbox's control API (as Meta's webhook brings it). */
export async function customerWrites(request: APIRequestContext, input: Record<string, unknown>) {
  const answer = await request.post("/sandbox/meta/control/inbound", { data: input });
  expect(answer.status(), await answer.text()).toBe(200);
  return ((await answer.json()) as { wamid: string }).wamid;
}

/** What the sandbox accepted from the number (Jumbe's sends), oldest first. */
export async function sandboxMessages(request: APIRequestContext, phoneNumberId: string) {
  const answer = await request.get(`/sandbox/meta/control/messages?phoneNumberId=${phoneNumberId}`);
  expect(answer.ok()).toBe(true);
  return ((await answer.json()) as { messages: SandboxMessage[] }).messages;
}

export const textOf = (m: SandboxMessage) => JSON.stringify(m.body);

/** The sandbox's message whose request carries `text`, once Jumbe's sending job has sent it. */
export async function sentMessage(request: APIRequestContext, phoneNumberId: string, text: string) {
  let found: SandboxMessage | undefined;
  await expect
    .poll(async () => (found = (await sandboxMessages(request, phoneNumberId)).find((m) => textOf(m).includes(text))), {
      message: `the sandbox received "${text}"`,
      timeout: 30_000,
    })
    .toBeTruthy();
  return found!;
}

export const list = (page: Page) => page.getByRole("region", { name: "Conversations" });
export const row = (page: Page, name: string) => list(page).locator("a[data-conversation]").filter({ hasText: name });
export const thread = (page: Page) => page.getByTestId("thread");
export const bubble = (page: Page, text: string) => thread(page).locator("li[data-message]").filter({ hasText: text });
export const composer = (page: Page) => page.getByRole("form", { name: "Reply" });
export const sendButton = (page: Page) => composer(page).getByRole("button", { name: "Send", exact: true });

/**
 * Waits for the customer's conversation in the list: with JavaScript it comes by the live stream;
 * without, by following "Check for new messages" until it is there.
 */
export async function awaitRow(page: Page, javaScriptEnabled: boolean, name: string) {
  if (javaScriptEnabled) return expect(row(page, name)).toBeVisible({ timeout: 30_000 });
  await expect(async () => {
    if (!(await row(page, name).isVisible())) await page.getByRole("link", { name: "Check for new messages" }).click();
    await expect(row(page, name)).toBeVisible({ timeout: 500 });
  }).toPass({ timeout: 30_000 });
}

/** Opens a customer's conversation from /chat; answers its id. */
export async function openConversation(page: Page, javaScriptEnabled: boolean, name: string) {
  await page.goto("/chat");
  await awaitRow(page, javaScriptEnabled, name);
  await row(page, name).click();
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("region", { name: "Conversation" }).getByRole("heading", { level: 2 })).toHaveText(name);
  // The composer's keys and suggestions are wired by app/assets/live.js once it has run.
  if (javaScriptEnabled) await expect(page.locator("html")).toHaveAttribute("data-live", "ready");
  return new URL(page.url()).pathname.split("/").at(-1)!;
}

/** Sends the composer's content: Enter with JavaScript, the Send button without. */
export async function send(page: Page, javaScriptEnabled: boolean) {
  if (javaScriptEnabled) await page.getByLabel("Message", { exact: true }).press("Enter");
  else await sendButton(page).click();
}

/** With JavaScript the page updates itself; without, a reload shows the change. */
export async function expectSoon(page: Page, javaScriptEnabled: boolean, check: () => Promise<void>) {
  if (javaScriptEnabled) return check();
  await expect(async () => {
    await page.reload();
    await check();
  }).toPass({ timeout: 30_000 });
}
