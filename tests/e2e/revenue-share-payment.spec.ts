import { randomInt } from "node:crypto";
import type { Browser, Locator, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { adminPage } from "./billing-helpers";
import { BASE_URL, field, randomIp, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 46 end to end, with JavaScript on and off: an administrator enrols a new organisation as a
// partner and moves a fresh organisation to it from the demo's Savannah Digital Agency in one step;
// that organisation tops up KES 2,000 through the M-Pesa sandbox's prompt. A new organisation is
// postpaid: its payment is money on account (a receipt), which earns the partner nothing (issue 72,
// decision 102: the monthly tax invoice it pays earns, once; revenue-share-month-recomputed.test.ts pays
// one). The administrator's Transactions tab (reached from the console's Billing tab, filtered to the
// partner) and the partner owner's own page show the client and no transaction of it, as soon as
// the payment is confirmed (the ledger is written with the payment: nothing to wait for).

/** The form in `scope` whose submit button is named `button`. */
const formWith = (page: Page, scope: Page | Locator, button: string) =>
  scope.locator("form").filter({ has: page.getByRole("button", { name: button }) });

async function signedInPage(browser: Browser, javaScriptEnabled: boolean, email: string, password: string) {
  const context = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  const page = await context.newPage();
  await signIn(page, email, password);
  return page;
}

/** Opens a partner's dialog from the Partners tab's search. */
async function openPartner(admin: Page, name: string) {
  await admin.goto(`/revenue-share/partners?q=${encodeURIComponent(name)}`);
  await admin.getByRole("link", { name, exact: true }).click();
  const dialog = admin.getByRole("dialog", { name });
  await expect(dialog).toBeVisible();
  return dialog;
}

async function assignClient(admin: Page, partner: string, client: string, reason: string) {
  const form = formWith(admin, await openPartner(admin, partner), "Assign client");
  await field(form, "Client organisation").fill(client);
  await field(form, "Reason").fill(reason);
  await form.getByRole("button", { name: "Assign client" }).click();
}

test("a postpaid client's M-Pesa top-up is money on account: its partner's tab and page show the client and no transaction", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(240_000);
  const owner = await signUpAndVerifyViaApi(request);
  const client = await signUpAndVerifyViaApi(request);
  const name = `${owner.businessName} Partners`;
  const admin = await adminPage(browser, javaScriptEnabled);

  await admin.goto("/revenue-share/partners?dialog=enrol");
  const enrol = admin.getByRole("dialog", { name: "Enrol Partner" });
  await field(enrol, "Organisation").fill(owner.email);
  await field(enrol, "Partner name").fill(name);
  await enrol.getByLabel("Category").selectOption("Agency");
  await field(enrol, "M-Pesa number").fill("0712 345 678");
  await field(enrol, "KRA PIN").fill("A123456789Z");
  await enrol.getByRole("button", { name: "Enrol partner" }).click();
  await expect(admin.getByText(new RegExp(`${name} is a partner now, referral code [A-Z0-9]+\\.`))).toBeVisible();

  // The client first with the demo's Savannah Digital Agency, then moved in one step.
  await assignClient(admin, "Savannah Digital Agency", client.email, "Met at the Nairobi workshop");
  await expect(admin.getByText(`${client.businessName} is a client of Savannah Digital Agency from now on.`)).toBeVisible();
  await assignClient(admin, name, client.email, "The client chose this agency's support");
  await expect(admin.getByText(`${client.businessName} moved from Savannah Digital Agency to ${name} from now on.`)).toBeVisible();
  await expect(admin.getByRole("dialog", { name }).getByRole("list", { name: "Clients" })).toContainText(client.businessName);

  // The client tops up KES 2,000 by M-Pesa; the sandbox's prompt is approved.
  await signIn(page, client.email, client.password);
  await page.goto("/billing?dialog=topup");
  const topup = page.getByRole("dialog", { name: "Top up your wallet" });
  const phone = `0722${randomInt(100_000, 1_000_000)}`;
  await field(topup, "Amount (KES)").fill("2000");
  await field(topup, "M-Pesa phone number").fill(phone);
  await topup.getByRole("button", { name: "Continue to payment" }).click();
  await expect(page).toHaveURL(/\/billing\/payments\/[0-9a-f-]{36}$/);
  let prompt: { CheckoutRequestID: string; phone: string } | undefined;
  await expect
    .poll(
      async () => {
        const prompts = (await (await request.get("/sandbox/mpesa/control/prompts")).json()) as {
          CheckoutRequestID: string;
          phone: string;
        }[];
        prompt = prompts.find((p) => p.phone === `254${phone.slice(1)}`);
        return prompt?.CheckoutRequestID;
      },
      { intervals: [100, 250, 500] },
    )
    .toBeTruthy();
  const answer = await request.post(`/sandbox/mpesa/control/prompts/${prompt!.CheckoutRequestID}`, { data: { outcome: "accept" } });
  expect(answer.status()).toBe(200);
  await expect(page.getByRole("heading", { name: "Paid: KES 2,000.00 received" })).toBeVisible({ timeout: 30_000 });

  // The administrator's Transactions tab, filtered to the partner: no transaction of the client's receipt.
  // From the admin console's Billing tab.
  await admin.goto("/admin/billing");
  await admin.getByRole("link", { name: "Revenue Share: partners, their clients' transactions and settlements" }).click();
  await expect(admin.getByRole("heading", { level: 1 })).toHaveText("Revenue Share");
  await admin.getByRole("navigation", { name: "Revenue Share sections" }).getByRole("link", { name: "Transactions" }).click();
  await expect(admin).toHaveURL(/\/revenue-share\/transactions$/);
  await admin.getByLabel("Partner").selectOption({ label: name });
  await admin.getByRole("button", { name: "Filter" }).click();
  await expect(admin).toHaveURL(/[?&]partner=[0-9a-f-]{36}/);
  await expect(admin.getByRole("heading", { level: 1 })).toHaveText("Revenue Share");
  await expect(admin.getByRole("table", { name: "Transactions" }).getByRole("row").filter({ hasText: client.businessName })).toHaveCount(0);
  await admin.context().close();

  // The partner's owner sees its client on its own page, no transaction of the receipt, and nothing of Savannah Digital Agency's.
  const partner = await signedInPage(browser, javaScriptEnabled, owner.email, owner.password);
  await partner.goto("/revenue-share");
  await expect(partner.getByRole("table", { name: "Clients" })).toContainText(client.businessName);
  await expect(partner.getByRole("table", { name: "Transactions" }).getByRole("row").filter({ hasText: client.businessName })).toHaveCount(
    0,
  );
  await expect(partner.getByText("Coastline Beach Hotels Ltd")).toHaveCount(0);
  await partner.context().close();
});
