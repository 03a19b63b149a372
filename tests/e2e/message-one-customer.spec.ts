import { randomBytes, randomInt } from "node:crypto";
import type { APIRequestContext, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { readyBusiness } from "./campaign-helpers";
import { field, signIn, signUpAndVerifyViaApi } from "./helpers";
import { connectWhatsApp } from "./template-helpers";

// Issue 39: writing to one customer first, with JavaScript on and off (the two projects): from a
// contact's page ("Message") and from the inbox ("New conversation", a typed number), into a
// conversation with no message yet, where an approved template goes out and shows in the thread.

const customerNumber = () => `07${randomInt(10, 99)}${randomInt(100, 999)}${randomInt(1000, 9999)}`.slice(0, 10);

/** What the sandbox accepted from the WABA's number, as text. */
async function sandboxSent(request: APIRequestContext, wabaId: string) {
  const state = (await (await request.get("/sandbox/meta/control/state")).json()) as { phoneNumbers: { id: string; wabaId: string }[] };
  const phone = state.phoneNumbers.find((p) => p.wabaId === wabaId);
  const answer = await request.get(`/sandbox/meta/control/messages?phoneNumberId=${phone?.id ?? ""}`);
  if (!answer.ok()) return "";
  return JSON.stringify(await answer.json());
}

async function addContact(page: Page, name: string, phone: string) {
  await page.goto("/messaging/contacts");
  await page.getByRole("link", { name: "Add contact" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add contact" });
  await expect(dialog).toBeVisible();
  await field(dialog, "Name").fill(name);
  await field(dialog, "Phone").fill(phone);
  await dialog.getByRole("button", { name: "Add contact" }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
}

test("from a contact's page, Message opens a conversation where an approved template goes out", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(150_000);
  const { template, wabaId } = await readyBusiness(page, request);
  const name = `Njeri Wambui ${randomBytes(2).toString("hex")}`;
  await addContact(page, name, customerNumber());

  await page.getByRole("link", { name: "Message", exact: true }).click();
  await expect(page).toHaveURL(/\/chat\/new\?contact=/);
  await expect(page.getByTestId("chosen-contact")).toContainText(name);
  await page.getByRole("button", { name: "Start conversation" }).click();
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { level: 2, name })).toBeVisible();
  await expect(page.getByTestId("window-state")).toHaveText("Window closed");
  const picker = page.getByTestId("template-picker");
  await expect(picker).toContainText("has not written to this number yet");

  const option = picker.locator("option", { hasText: template });
  await picker.getByLabel("Template").selectOption((await option.getAttribute("value"))!);
  if (!javaScriptEnabled) await picker.getByRole("button", { name: "Choose" }).click();
  const form = page.getByRole("form", { name: "Send a template" });
  await form.getByLabel("Value of {{1}}").fill("Njeri");
  await form.getByLabel("Value of {{2}}").fill("Friday");
  await form.getByRole("button", { name: "Send template" }).click();
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}/);
  await expect(
    page.getByTestId("thread").locator("li[data-message]").filter({ hasText: "Habari Njeri, water will be off in your area on Friday." }),
  ).toBeVisible();
  await expect.poll(() => sandboxSent(request, wabaId), { timeout: 30_000 }).toContain("Friday");

  // The contact's Message goes straight to the conversation now.
  await page.goto("/messaging/contacts");
  await page.getByRole("link", { name: `Message ${name}` }).click();
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
});

test("from the inbox, New conversation with a typed number makes the contact and an empty conversation", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password);
  await connectWhatsApp(page, `Duka Kisii ${randomBytes(2).toString("hex")}`);
  await page.goto("/chat");
  await page.getByRole("link", { name: "New conversation" }).click();
  await expect(page).toHaveURL(/\/chat\/new$/);

  // A bad number: said at the field, what was typed kept.
  await field(page, "Phone number").fill("12ab");
  await page.getByRole("button", { name: "Start conversation" }).click();
  await expect(field(page, "Phone number")).toHaveValue("12ab");
  await expect(field(page, "Phone number")).toHaveAccessibleDescription(/"12ab" is not a phone number/);

  const typed = customerNumber();
  const e164 = `+254${typed.slice(1)}`;
  await field(page, "Phone number").fill(typed);
  await page.getByRole("button", { name: "Start conversation" }).click();
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { level: 2, name: e164 })).toBeVisible();
  await expect(page.getByTestId("template-picker")).toBeVisible();
  // In the list (beside the thread with scripts; on /chat, which the pane links to, without).
  const list = page.getByRole("region", { name: "Conversations" });
  if (!javaScriptEnabled) await list.getByRole("link", { name: "All conversations" }).click();
  await expect(list.locator("a[data-conversation]").filter({ hasText: e164 })).toContainText("No messages yet");

  // The number is a contact now, named by it.
  await page.goto(`/messaging/contacts?q=${encodeURIComponent(typed.slice(1))}`);
  await expect(page.getByRole("link", { name: e164, exact: true })).toBeVisible();
});
