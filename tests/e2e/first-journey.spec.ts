import { randomBytes, randomInt } from "node:crypto";
import type { APIRequestContext, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { fillCampaign, makeApprovedTemplate } from "./campaign-helpers";
import {
  connectThroughDialog,
  expectSignupCompleteThenSetup,
  field,
  fillOtpBoxes,
  kenyanNumber,
  latestCode,
  newUser,
  signInViaForm,
  signUpViaForm,
} from "./helpers";

// Issue 39: a first-time user's whole journey as one test, with JavaScript on and off (the two
// projects): sign up, connect WhatsApp, make a template, add a contact, message that one customer,
// send a quick broadcast, answer the customer in the inbox, top up the wallet with M-Pesa. Every
// section is reached from the menu, as a person finds it; the outside systems are the sandboxes.

const menu = (page: Page) => page.getByRole("complementary", { name: "Main navigation" });

/** Opens a section from the side navigation (the viewport is wide: the menu is always there). */
async function openFromMenu(page: Page, label: string, url: RegExp) {
  // An entry's name may carry a count after the label ("Inbox 1 unread").
  await menu(page)
    .getByRole("link", { name: new RegExp(`^${label}\\b`) })
    .click();
  await expect(page).toHaveURL(url);
}

interface SandboxState {
  phoneNumbers: { id: string; wabaId: string; displayPhoneNumber: string }[];
}

async function sandboxNumber(request: APIRequestContext, typed: string) {
  const state = (await (await request.get("/sandbox/meta/control/state")).json()) as SandboxState;
  const digits = typed.replace(/\D/g, "");
  const phone = state.phoneNumbers.find((p) => p.displayPhoneNumber.replace(/\D/g, "") === digits);
  expect(phone, `the sandbox holds ${typed}`).toBeTruthy();
  return phone!;
}

/** What the sandbox accepted from the business's number, as one text. */
async function sentFrom(request: APIRequestContext, phoneNumberId: string) {
  const answer = await request.get(`/sandbox/meta/control/messages?phoneNumberId=${phoneNumberId}`);
  return answer.ok() ? JSON.stringify(await answer.json()) : "";
}

test("a new business's first day: sign up, connect, template, contact, one message, broadcast, inbox reply, top-up", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(240_000);
  const user = newUser();
  const tag = randomBytes(2).toString("hex");
  const business = `Maji Safi Naivasha ${tag}`;
  const customer = { name: `Achieng Otieno ${tag}`, local: `07${randomInt(10, 99)}${randomInt(100_000, 999_999)}` };
  const customerDigits = `254${customer.local.slice(1)}`;
  const template = `water_notice_${randomBytes(3).toString("hex")}`;

  await test.step("sign up, verify the e-mail and sign in", async () => {
    await signUpViaForm(page, user, { businessName: true });
    await fillOtpBoxes(page, await latestCode(request, user.email, { kind: "verification" }));
    await page.getByRole("button", { name: "Verify Account" }).click();
    await page.waitForURL("**/login", { timeout: 30_000 });
    await signInViaForm(page, user.email, user.password, { goto: false });
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
  });

  let phoneNumberId = "";
  let wabaId = "";
  await test.step("connect WhatsApp through Embedded Signup", async () => {
    await openFromMenu(page, "WhatsApp Setup", /\/whatsapp$/);
    const number = kenyanNumber();
    await connectThroughDialog(page, javaScriptEnabled, number, business);
    await expectSignupCompleteThenSetup(page);
    ({ id: phoneNumberId, wabaId } = await sandboxNumber(request, number));
  });

  await test.step("make a template and see it approved", async () => {
    await openFromMenu(page, "Templates", /\/templates$/);
    await makeApprovedTemplate(page, request, javaScriptEnabled, { name: template, wabaId });
  });

  await test.step("add a contact", async () => {
    await openFromMenu(page, "Contacts", /\/messaging\/contacts$/);
    await page.getByRole("link", { name: "Add contact" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add contact" });
    await field(dialog, "Name").fill(customer.name);
    await field(dialog, "Phone").fill(customer.local);
    await dialog.getByRole("button", { name: "Add contact" }).click();
    await expect(page.getByRole("heading", { level: 1, name: customer.name })).toBeVisible();
  });

  await test.step("message that one customer: a template, since they have not written yet", async () => {
    await page.getByRole("link", { name: "Message", exact: true }).click();
    await page.getByRole("button", { name: "Start conversation" }).click();
    await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
    await expect(page.getByTestId("window-state")).toHaveText("Window closed");
    const picker = page.getByTestId("template-picker");
    const option = picker.locator("option", { hasText: template });
    await picker.getByLabel("Template").selectOption((await option.getAttribute("value"))!);
    if (!javaScriptEnabled) await picker.getByRole("button", { name: "Choose" }).click();
    const form = page.getByRole("form", { name: "Send a template" });
    await form.getByLabel("Value of {{1}}").fill("Achieng");
    await form.getByLabel("Value of {{2}}").fill("Friday");
    await form.getByRole("button", { name: "Send template" }).click();
    await expect(
      page
        .getByTestId("thread")
        .locator("li[data-message]")
        .filter({ hasText: "Habari Achieng, water will be off in your area on Friday." }),
    ).toBeVisible();
    await expect.poll(() => sentFrom(request, phoneNumberId), { timeout: 30_000 }).toContain("Friday");
  });

  await test.step("send a quick broadcast", async () => {
    await openFromMenu(page, "Campaigns", /\/messaging$/);
    await page.goto("/messaging/broadcasts");
    await page.getByRole("link", { name: "Quick Broadcast" }).first().click();
    await expect(page).toHaveURL(/\/messaging\/broadcasts\/new$/);
    await fillCampaign(page, javaScriptEnabled, {
      template,
      phones: [customer.local, `07${randomInt(10, 99)}${randomInt(100_000, 999_999)}`],
    });
    await expect(page.getByTestId("review-recipients")).toHaveText("2");
    await page.getByRole("button", { name: "Confirm and send to 2" }).click();
    await expect(page.getByText("Quick broadcast of")).toBeVisible();
    await expect(async () => {
      if (!javaScriptEnabled) await page.reload();
      await expect(page.getByTestId("campaign-status")).toHaveText("Completed", { timeout: 2000 });
    }).toPass({ timeout: 60_000 });
  });

  await test.step("the customer writes back; the inbox answers in free text", async () => {
    const answer = await request.post("/sandbox/meta/control/inbound", {
      data: { phoneNumberId, from: customerDigits, name: customer.name, text: "Asante! Maji yatarudi saa ngapi?" },
    });
    expect(answer.status(), await answer.text()).toBe(200);
    await openFromMenu(page, "Inbox", /\/chat$/);
    const row = page.getByRole("region", { name: "Conversations" }).locator("a[data-conversation]").filter({ hasText: customer.name });
    await expect(async () => {
      if (!javaScriptEnabled) await page.reload();
      await expect(row).toContainText("Maji yatarudi saa ngapi?", { timeout: 2000 });
    }).toPass({ timeout: 30_000 });
    await row.click();
    await expect(page.getByTestId("window-state")).not.toHaveText("Window closed");
    await page.getByLabel("Message", { exact: true }).fill("Saa kumi jioni. Pole kwa usumbufu.");
    await page.getByRole("form", { name: "Reply" }).getByRole("button", { name: "Send", exact: true }).click();
    await expect(page.getByTestId("thread").locator("li[data-message]").filter({ hasText: "Saa kumi jioni." })).toBeVisible();
    await expect.poll(() => sentFrom(request, phoneNumberId), { timeout: 30_000 }).toContain("Saa kumi jioni.");
  });

  await test.step("top up the wallet with M-Pesa", async () => {
    await openFromMenu(page, "Billing", /\/billing$/);
    await page.getByRole("link", { name: "Top up wallet" }).click();
    const dialog = page.getByRole("dialog", { name: "Top up your wallet" });
    await field(dialog, "Amount (KES)").fill("1500");
    await dialog.getByRole("radio", { name: /^M-Pesa/ }).check();
    const payer = `0722${randomInt(100_000, 1_000_000)}`;
    await field(dialog, "M-Pesa phone number").fill(payer);
    await dialog.getByRole("button", { name: "Continue to payment" }).click();
    await expect(page).toHaveURL(/\/billing\/payments\/[0-9a-f-]{36}$/);
    // The payer approves on their phone (the M-Pesa sandbox's handset page).
    const phonePage = await page.context().newPage();
    await phonePage.goto(`/sandbox/mpesa/phone?phone=254${payer.slice(1)}`);
    await phonePage.getByLabel("Enter M-PESA PIN").fill("4321");
    await phonePage.getByRole("button", { name: "Send" }).click();
    await expect(phonePage.getByRole("status")).toContainText("Confirmed.");
    await phonePage.close();
    await expect(page.getByRole("heading", { name: "Paid: KES 1,500.00 received" })).toBeVisible({ timeout: 30_000 });
    await openFromMenu(page, "Billing", /\/billing$/);
    await expect(page.getByTestId("billing-balance")).toHaveText("KES 1,500.00");
  });
});
