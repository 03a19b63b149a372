import { readFile } from "node:fs/promises";
import { randomInt } from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL, field, randomIp, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 17: /billing with JavaScript on and off. Top-ups through the M-Pesa sandbox's prompt and
// Paystack's sandbox checkout, a bank transfer's invoice and its PDF, disputes, and tenant separation.
// A new organisation is postpaid: its top-ups go on account (a receipt, RCT-...), which is fine here.

const BOUNDS = "At least KES 10, at most KES 250,000 per M-Pesa payment.";
const AMOUNT_REFUSED = "Enter a whole number of shillings from KES 10 to KES 250,000.";
const REASON_SHORT = "Say what is wrong with the invoice (at least 10 characters).";
const CANCELLED = "You cancelled the M-Pesa prompt on your phone.";

/** A Safaricom number nobody else's test uses (not one of the sandbox's magic numbers). */
function mpesaPhone() {
  const local = `0722${randomInt(100_000, 1_000_000)}`;
  return { typed: local, international: `254${local.slice(1)}` };
}

async function signedInOwner(page: Page, request: APIRequestContext) {
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password);
  return owner;
}

const topupDialog = (page: Page) => page.getByRole("dialog", { name: "Top up your wallet" });
const invoicesTable = (page: Page) => page.getByRole("table", { name: "Invoices" });

async function openTopup(page: Page) {
  await page.goto("/billing");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Billing & Subscription");
  await page.getByRole("link", { name: "Top up wallet" }).click();
  await expect(page).toHaveURL(/[?&]dialog=topup/);
  await expect(topupDialog(page)).toBeVisible();
  return topupDialog(page);
}

interface Prompt {
  CheckoutRequestID: string;
  phone: string;
  amount: number;
}

/** The pending M-Pesa prompt on `phone` (the sandbox's control API), once it is there. */
async function promptOn(request: APIRequestContext, phone: string) {
  let found: Prompt | undefined;
  await expect
    .poll(
      async () => {
        const prompts = (await (await request.get("/sandbox/mpesa/control/prompts")).json()) as Prompt[];
        found = prompts.find((p) => p.phone === phone);
        return found?.CheckoutRequestID;
      },
      { message: `a prompt on ${phone}`, intervals: [100, 250, 500] },
    )
    .toBeTruthy();
  return found!;
}

async function pendingPromptsOn(request: APIRequestContext, phone: string) {
  const prompts = (await (await request.get("/sandbox/mpesa/control/prompts")).json()) as Prompt[];
  return prompts.filter((p) => p.phone === phone);
}

async function answerPrompt(request: APIRequestContext, id: string, outcome: "accept" | "cancel") {
  const answer = await request.post(`/sandbox/mpesa/control/prompts/${id}`, { data: { outcome } });
  expect(answer.status(), await answer.text()).toBe(200);
}

/** Fills the top-up form and sends it. */
async function submitTopup(page: Page, input: { amount?: string; method?: "M-Pesa" | "Card" | "Bank transfer"; phone?: string }) {
  const dialog = topupDialog(page);
  if (input.amount !== undefined) await field(dialog, "Amount (KES)").fill(input.amount);
  if (input.method) await dialog.getByRole("radio", { name: new RegExp(`^${input.method}`) }).check();
  if (input.phone !== undefined) await field(dialog, "M-Pesa phone number").fill(input.phone);
  await dialog.getByRole("button", { name: "Continue to payment" }).click();
}

/** The payment page says it is paid: with JavaScript it updates in place, without it refreshes itself. */
async function expectPaid(page: Page, amount: string) {
  await expect(page.getByRole("heading", { name: `Paid: ${amount} received` })).toBeVisible({ timeout: 30_000 });
}

test("an owner tops up KES 1,000 with M-Pesa: bad amounts are refused at the field, the prompt is approved, the balance and a receipt follow", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(90_000);
  await signedInOwner(page, request);
  const phone = mpesaPhone();
  const dialog = await openTopup(page);
  await expect(dialog.getByText(BOUNDS)).toBeVisible();
  await expect(field(dialog, "Amount (KES)")).toHaveValue("1000");
  await expect(dialog.getByRole("radio", { name: /^M-Pesa/ })).toBeChecked();

  // Too little, not a number, too much: refused at the field with the bounds, what was typed kept, nothing sent.
  for (const amount of ["5", "abc", "300000"]) {
    await submitTopup(page, { amount, phone: phone.typed });
    await expect(topupDialog(page).getByText(AMOUNT_REFUSED)).toBeVisible();
    await expect(field(topupDialog(page), "Amount (KES)")).toHaveValue(amount);
    await expect(field(topupDialog(page), "Amount (KES)")).toHaveAttribute("aria-invalid", "true");
  }
  expect(await pendingPromptsOn(request, phone.international)).toEqual([]);

  // The presets fill the amount.
  await topupDialog(page).getByRole("link", { name: "KES 2,500" }).click();
  await expect(field(topupDialog(page), "Amount (KES)")).toHaveValue("2500");
  await topupDialog(page).getByRole("link", { name: "KES 1,000" }).click();
  await expect(field(topupDialog(page), "Amount (KES)")).toHaveValue("1000");

  await submitTopup(page, { phone: phone.typed });
  await expect(page).toHaveURL(/\/billing\/payments\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { name: "Check your phone: approve KES 1,000 to Jumbe with your M-Pesa PIN" })).toBeVisible();
  await expect(page.getByText(`The prompt went to +${phone.international}.`)).toBeVisible();
  await expect(page.getByRole("link", { name: "Check again" })).toBeVisible();
  const prompt = await promptOn(request, phone.international);
  expect(prompt.amount).toBe(1000);

  if (javaScriptEnabled) {
    // The page waits in place: no reload between the prompt and the answer.
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    await answerPrompt(request, prompt.CheckoutRequestID, "accept");
    await expectPaid(page, "KES 1,000.00");
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
  } else {
    // The customer's phone in the sandbox: a PIN pays. The payment page refreshes itself meanwhile.
    const phonePage = await page.context().newPage();
    await phonePage.goto(`/sandbox/mpesa/phone?phone=${phone.international}`);
    await phonePage.getByLabel("Enter M-PESA PIN").fill("4321");
    await phonePage.getByRole("button", { name: "Send" }).click();
    // The phone shows M-Pesa's confirmation once the sandbox has the answer; closing it sooner could
    // cancel the PIN's form post before it arrives.
    await expect(phonePage.getByRole("status")).toContainText("Confirmed.");
    await phonePage.close();
    await expectPaid(page, "KES 1,000.00");
  }
  await expect(page.getByTestId("payment-balance")).toHaveText("KES 1,000.00");
  await expect(page.getByText(/^M-Pesa receipt [A-Z0-9]{10}\.$/)).toBeVisible();
  const receipt = page.getByRole("link", { name: /^View receipt (INV|RCT)-\d{4}-\d{6}$/ });
  const number = (await receipt.textContent())!.replace("View receipt ", "");

  await page.goto("/billing");
  await expect(page.getByTestId("billing-balance")).toHaveText("KES 1,000.00");
  const row = invoicesTable(page).getByRole("row").filter({ hasText: number });
  await expect(row).toContainText("KES 1,000.00");
  await expect(row).toContainText("Paid");
});

test("a cancelled M-Pesa prompt says so in words, and Try again goes back to the top-up", async ({ page, request }) => {
  await signedInOwner(page, request);
  const phone = mpesaPhone();
  await openTopup(page);
  await submitTopup(page, { amount: "750", phone: phone.typed });
  await expect(page).toHaveURL(/\/billing\/payments\/[0-9a-f-]{36}$/);
  const prompt = await promptOn(request, phone.international);
  await answerPrompt(request, prompt.CheckoutRequestID, "cancel");
  await expect(page.getByTestId("payment-state").getByText(CANCELLED)).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("payment-state")).toHaveAttribute("data-status", "failed");
  await page.getByRole("link", { name: "Try again" }).click();
  await expect(topupDialog(page)).toBeVisible();
  await expect(field(topupDialog(page), "Amount (KES)")).toHaveValue("750");
  await page.goto("/billing");
  await expect(page.getByTestId("billing-balance")).toHaveText("KES 0.00");
  await expect(invoicesTable(page)).toContainText("No invoices yet.");
});

// Issue 39: the paybill way to pay, beside the prompt, read off the page at 360 px and paid to from the "phone".
test.describe("on a 360 px phone", () => {
  test.use({ viewport: { width: 360, height: 740 } });

  test("the top-up shows the M-Pesa Paybill and its account, and paying to them credits the wallet", async ({ page, request }) => {
    await signedInOwner(page, request);
    const dialog = await openTopup(page);
    const paybill = dialog.getByRole("region", { name: "Or pay with M-Pesa Paybill" });
    await expect(paybill.getByTestId("paybill-business-number")).toHaveText(/^\d{5,7}$/);
    const account = (await paybill.getByTestId("paybill-account-number").innerText()).trim();
    expect(account).toMatch(/^JMB-[A-Z2-9]{8}$/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    const paid = await request.post("/sandbox/mpesa/control/c2b", {
      data: { msisdn: mpesaPhone().international, amount: 700, billRefNumber: account },
    });
    expect(paid.ok()).toBe(true);
    await expect
      .poll(
        async () => {
          await page.goto("/billing");
          return page.getByTestId("billing-balance").innerText();
        },
        { message: "the paybill payment in the wallet", intervals: [250, 500, 1000] },
      )
      .toBe("KES 700.00");
  });
});

test("an owner pays KES 2,500 by card through the sandbox checkout and comes back to a completed payment", async ({ page, request }) => {
  test.setTimeout(90_000);
  await signedInOwner(page, request);
  await openTopup(page);
  await topupDialog(page).getByRole("link", { name: "KES 2,500" }).click();
  await expect(field(topupDialog(page), "Amount (KES)")).toHaveValue("2500");
  await submitTopup(page, { method: "Card" });
  await expect(page).toHaveURL(/\/sandbox\/paystack\/checkout\//);
  await page.getByLabel("Card number").fill("4084 0840 8408 4081");
  await page.getByLabel("Expiry (MM/YY)").fill("12/30");
  await page.getByLabel("CVV").fill("408");
  await page.getByRole("button", { name: /^Pay KES 2,500/ }).click();
  await expect(page).toHaveURL(/\/billing\/payments\/[0-9a-f-]{36}$/);
  await expectPaid(page, "KES 2,500.00");
  await expect(page.getByTestId("payment-balance")).toHaveText("KES 2,500.00");
  await page.goto("/billing");
  await expect(page.getByTestId("billing-balance")).toHaveText("KES 2,500.00");
  await expect(invoicesTable(page).getByRole("row").filter({ hasText: "KES 2,500.00" })).toContainText("Paid");
});

test("a bank transfer shows the account and a reference, and its pending invoice downloads as a PDF", async ({ page, request }) => {
  await signedInOwner(page, request);
  await openTopup(page);
  await submitTopup(page, { amount: "5,000", method: "Bank transfer" });
  await expect(page).toHaveURL(/\/billing\/payments\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { name: "Pay by bank transfer" })).toBeVisible();
  await expect(page.getByTestId("bank-reference")).toHaveText(/^JMB-BT-[A-Z2-9]{6}$/);
  await expect(page.getByText("Account number")).toBeVisible();
  await expect(page.getByText("KES 5,000.00").first()).toBeVisible();
  await page.getByRole("link", { name: /^View the pending invoice / }).click();
  await expect(page).toHaveURL(/\/billing\/invoices\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Pending");

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download PDF" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^(INV|RCT)-\d{4}-\d{6}\.pdf$/);
  const file = await readFile((await download.path())!);
  expect(file.subarray(0, 5).toString("latin1")).toBe("%PDF-");

  // And from the invoice history.
  await page.goto("/billing");
  const number = download.suggestedFilename().replace(/\.pdf$/, "");
  const [again] = await Promise.all([
    page.waitForEvent("download"),
    invoicesTable(page)
      .getByRole("link", { name: `Download PDF of ${number}` })
      .click(),
  ]);
  expect(again.suggestedFilename()).toBe(`${number}.pdf`);
});

/** A pending invoice of the signed-in organisation, by a bank transfer through the JSON API. */
async function pendingInvoice(page: Page, amount: number) {
  const started = await page.request.post("/api/billing/topups", {
    headers: { Origin: BASE_URL },
    data: { amount, method: "bank" },
  });
  expect(started.status(), await started.text()).toBe(201);
  const body = (await started.json()) as { id: string; invoiceId: string };
  await page.goto(`/billing/invoices/${body.invoiceId}`);
  const number = ((await page.getByRole("heading", { level: 1 }).textContent()) ?? "").match(/(INV|RCT)-\d{4}-\d{6}/)![0];
  return { paymentId: body.id, invoiceId: body.invoiceId, number };
}

test("an owner disputes invoices with a reason, from the history and from the invoice's page; a short reason is refused", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  await signedInOwner(page, request);
  const first = await pendingInvoice(page, 1500);
  const second = await pendingInvoice(page, 3000);

  // From the invoice history: a dialog with the reason.
  await page.goto("/billing");
  await invoicesTable(page)
    .getByRole("link", { name: `Dispute ${first.number}` })
    .click();
  const dialog = page.getByRole("dialog", { name: `Dispute ${first.number}` });
  await expect(dialog).toBeVisible();
  await field(dialog, `What is wrong with ${first.number}?`).fill("wrong");
  await dialog.getByRole("button", { name: `Dispute ${first.number}` }).click();
  await expect(page.getByRole("dialog", { name: `Dispute ${first.number}` }).getByText(REASON_SHORT)).toBeVisible();
  const reason = "We were charged for a transfer we never made.";
  await field(page.getByRole("dialog", { name: `Dispute ${first.number}` }), `What is wrong with ${first.number}?`).fill(reason);
  await page
    .getByRole("dialog", { name: `Dispute ${first.number}` })
    .getByRole("button", { name: `Dispute ${first.number}` })
    .click();
  await expect(page).toHaveURL(/\/billing$/);
  await expect(page.getByText(`${first.number} is disputed.`, { exact: false })).toBeVisible();
  const row = invoicesTable(page).getByRole("row").filter({ hasText: first.number });
  await expect(row).toContainText("Disputed");
  await expect(row).toContainText(`Reason: ${reason}`);
  await expect(row.getByRole("link", { name: `Dispute ${first.number}` })).toHaveCount(0);

  // From the invoice's own page.
  await page.goto(`/billing/invoices/${second.invoiceId}`);
  const reasonField = field(page, `What is wrong with ${second.number}?`);
  await reasonField.fill("too short");
  await page.getByRole("button", { name: `Dispute ${second.number}` }).click();
  await expect(page.getByText(REASON_SHORT)).toBeVisible();
  await expect(field(page, `What is wrong with ${second.number}?`)).toHaveValue("too short");
  await field(page, `What is wrong with ${second.number}?`).fill("The amount is not what we agreed with your sales team.");
  await page.getByRole("button", { name: `Dispute ${second.number}` }).click();
  await expect(page.getByTestId("invoice-dispute")).toContainText("Reason: The amount is not what we agreed with your sales team.");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Disputed");
  await expect(page.getByRole("button", { name: `Dispute ${second.number}` })).toHaveCount(0);
});

test("another business gets 404 for the first one's invoice and payment; /billing passes axe", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  await signedInOwner(page, request);
  const { paymentId, invoiceId, number } = await pendingInvoice(page, 2000);

  const other = await signUpAndVerifyViaApi(request);
  const context = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  try {
    const stranger = await context.newPage();
    await signIn(stranger, other.email, other.password);
    for (const path of [`/billing/invoices/${invoiceId}`, `/billing/payments/${paymentId}`]) {
      const answer = await stranger.goto(path);
      expect(answer?.status(), path).toBe(404);
      await expect(stranger.getByText(number)).toHaveCount(0);
    }
    expect((await stranger.request.get(`/billing/invoices/${invoiceId}/pdf`)).status()).toBe(404);
    expect((await stranger.request.get(`/api/billing/topups/${paymentId}`)).status()).toBe(404);
    // A dispute of it is not found either, and changes nothing.
    const posted = await stranger.request.post(`/billing/invoices/${invoiceId}`, {
      headers: { Origin: BASE_URL },
      form: { intent: "dispute", reason: "Not ours, but let us try anyway." },
    });
    expect(posted.status()).toBe(404);
    await stranger.goto("/billing");
    await expect(invoicesTable(stranger)).toContainText("No invoices yet.");
  } finally {
    await context.close();
  }
  await page.goto(`/billing/invoices/${invoiceId}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Pending");

  if (!javaScriptEnabled) return;
  // axe runs as a script: with JavaScript on only. The page, and its top-up dialog open.
  for (const path of ["/billing", "/billing?dialog=topup", `/billing/invoices/${invoiceId}`, `/billing/payments/${paymentId}`]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    const { violations, passes } = await new AxeBuilder({ page }).analyze();
    expect(passes.length).toBeGreaterThan(10);
    const serious = violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    expect(serious, path).toEqual([]);
  }
});

test("an owner changes the plan from the next period and sets the wallet's alerts; bad figures are refused at their fields", async ({
  page,
  request,
}) => {
  await signedInOwner(page, request);
  await page.goto("/billing");
  await expect(page.getByTestId("billing-plan")).toHaveText("Starter · Postpaid");
  await expect(page.getByTestId("billing-next-plan")).toHaveCount(0);

  await page.getByRole("link", { name: "Change plan" }).click();
  const dialog = page.getByRole("dialog", { name: "Change plan" });
  await expect(dialog.getByText(/applies from the next billing period, on 1 \w+ \d{4}/)).toBeVisible();
  await dialog.getByRole("radio", { name: /^Growth · Postpaid/ }).check();
  await dialog.getByRole("button", { name: /^Change from 1 \w+ \d{4}$/ }).click();
  await expect(page.getByText("Plan change saved. It applies from the start of the next billing period.")).toBeVisible();
  await expect(page.getByTestId("billing-next-plan")).toHaveText(/^Growth \(postpaid\) from 1 \w+ \d{4}$/);
  await expect(page.getByTestId("billing-plan")).toHaveText("Starter · Postpaid");
  // Choosing the current plan again cancels the change.
  await page.getByRole("link", { name: "Change plan" }).click();
  await page
    .getByRole("dialog", { name: "Change plan" })
    .getByRole("radio", { name: /^Starter · Postpaid/ })
    .check();
  await page
    .getByRole("dialog", { name: "Change plan" })
    .getByRole("button", { name: /^Change from/ })
    .click();
  await expect(page.getByText("Plan change saved.", { exact: false })).toBeVisible();
  await expect(page.getByTestId("billing-next-plan")).toHaveCount(0);

  // The wallet's alerts: a figure that is not one, a prompt without its amount, then all of it.
  await field(page, "Low-balance alert (KES)").fill("abc");
  await page.getByRole("button", { name: "Save alerts" }).click();
  await expect(page.getByText(/^Low-balance alert: enter whole shillings/)).toBeVisible();
  await expect(field(page, "Low-balance alert (KES)")).toHaveValue("abc");
  await field(page, "Low-balance alert (KES)").fill("1000");
  await field(page, "Balance below (KES)").fill("500");
  await page.getByRole("button", { name: "Save alerts" }).click();
  await expect(page.getByText("Prompt amount: enter whole shillings from KES 10 to KES 250,000.")).toBeVisible();
  await field(page, "Prompt amount (KES)").fill("2000");
  await field(page, "Phone to prompt").fill("0722 123 456");
  await page.getByRole("button", { name: "Save alerts" }).click();
  await expect(page.getByText("Wallet alerts saved.")).toBeVisible();
  await page.goto("/billing");
  await expect(field(page, "Low-balance alert (KES)")).toHaveValue("1000");
  await expect(field(page, "Balance below (KES)")).toHaveValue("500");
  await expect(field(page, "Prompt amount (KES)")).toHaveValue("2000");
  await expect(field(page, "Phone to prompt")).toHaveValue("254722123456");
});

// /billing is a document without React (decision 066): with scripts, app/assets/forms.js makes the
// dialog the server drew open modal, and Escape leaves it as its Close link does.
test("the top-up dialog is modal with scripts, and Escape closes it; without them Close does", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password, { to: "/billing?dialog=topup" });
  const dialog = page.getByRole("dialog", { name: "Top up your wallet" });
  await expect(dialog).toBeVisible();
  expect(await page.evaluate(() => "__reactRouterContext" in window)).toBe(false);
  if (javaScriptEnabled) {
    await expect.poll(() => dialog.evaluate((el) => el.matches(":modal"))).toBe(true);
    await page.keyboard.press("Escape");
  } else {
    expect(await dialog.evaluate((el) => el.matches(":modal"))).toBe(false);
    await dialog.getByRole("link", { name: "Close" }).click();
  }
  await expect(page).toHaveURL(/\/billing$/);
  await expect(page.getByRole("dialog")).toHaveCount(0);
});
