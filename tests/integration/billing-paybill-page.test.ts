import { afterEach, describe, expect, it } from "vitest";
import { db } from "~/.server/infrastructure/db/client";
import { env, setEnv } from "~/.server/infrastructure/config/env";
import { c2bSecret, validatePaybill } from "~/.server/domains/billing/mpesa";
import { completePayment, createPayment, failPayment } from "~/.server/domains/billing/payments";
import { issueInvoice } from "~/.server/domains/billing/invoices";
import { lineFromGross } from "~/.server/domains/billing/vat";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest } from "../support/http";
import { appFetch } from "../support/in-process-app";

// Issue 39: the pages where one pays (the top-up dialog, a waiting or failed M-Pesa prompt, an unpaid
// monthly invoice) also show the paybill way: the configured business number, and as the account the
// organisation's business id, which the paybill's validation and confirmation match to its wallet.
// Server-rendered: the HTML a browser without JavaScript gets.

const SHORTCODE = "4012345";
const original = env();
afterEach(() => setEnv(original));

async function owner() {
  const user = await createVerifiedUser({ businessName: "Nyota Savings Sacco" });
  setEnv({ ...original, MPESA_SHORTCODE: SHORTCODE });
  return {
    organizationId: user.organization.id,
    businessId: user.organization.businessId,
    cookie: await signedInCookie(user.email, user.password),
  };
}

async function page(path: string, cookie: string) {
  const res = await appFetch(getRequest(path, { cookie }));
  expect(res.status).toBe(200);
  return res.text();
}

/** The paybill box's business number, account number and amount as the page shows them (null: no box). */
function paybillIn(html: string) {
  const box = html.match(/<section[^>]*data-testid="paybill"[^>]*>([\s\S]*?)<\/section>/)?.[1];
  if (!box) return null;
  const cell = (testId: string) => box.match(new RegExp(`data-testid="${testId}"[^>]*>([^<]*)<`))?.[1] ?? null;
  return {
    businessNumber: cell("paybill-business-number"),
    accountNumber: cell("paybill-account-number"),
    amount: box.match(/Amount<\/dt><dd[^>]*>([^<]*)</)?.[1] ?? null,
  };
}

const mpesaPrompt = (organizationId: string, amountCents: number) =>
  createPayment(db(), { organizationId, method: "mpesa", amountCents, phone: "254712345678" }).then((r) => r.payment);

const c2b = (account: string) => ({
  TransactionType: "Pay Bill",
  TransID: "SKB7QW2P4L",
  TransTime: "20261120093000",
  TransAmount: "1500.00",
  BusinessShortCode: SHORTCODE,
  BillRefNumber: account,
  MSISDN: "254712345678",
  FirstName: "Wanjiku",
});

describe("the M-Pesa paybill on the payment pages", () => {
  it("shows the business number and the organisation's account in the top-up dialog, an account the paybill accepts", async () => {
    const o = await owner();
    const shown = paybillIn(await page("/billing?dialog=topup", o.cookie));
    expect(shown).toEqual({ businessNumber: SHORTCODE, accountNumber: o.businessId, amount: null });
    // The account as shown names this organisation at the paybill's validation.
    const answer = await validatePaybill(c2bSecret(), c2b(shown!.accountNumber!), "127.0.0.1");
    expect(answer.body).toEqual({ ResultCode: "0", ResultDesc: "Accepted" });
  });

  it("shows it beside a waiting M-Pesa prompt and after a failed one, with the amount; not once it is paid", async () => {
    const o = await owner();
    const waiting = await mpesaPrompt(o.organizationId, 250_000);
    const waitingPage = await page(`/billing/payments/${waiting.id}`, o.cookie);
    expect(waitingPage).toContain("Check your phone");
    expect(paybillIn(waitingPage)).toEqual({ businessNumber: SHORTCODE, accountNumber: o.businessId, amount: "KES 2,500.00" });

    const failed = await mpesaPrompt(o.organizationId, 100_000);
    await failPayment(failed.id, { code: "1032", reason: "You cancelled the M-Pesa prompt. Nothing was charged." });
    const failedPage = await page(`/billing/payments/${failed.id}`, o.cookie);
    expect(failedPage).toContain("The payment did not go through");
    expect(paybillIn(failedPage)).toEqual({ businessNumber: SHORTCODE, accountNumber: o.businessId, amount: "KES 1,000.00" });

    await completePayment(waiting.id, { receipt: "SKA1B2C3D4", via: "M-Pesa" });
    const paidPage = await page(`/billing/payments/${waiting.id}`, o.cookie);
    expect(paidPage).toContain("Paid: KES 2,500.00 received");
    expect(paybillIn(paidPage)).toBeNull();
  });

  it("shows it on an unpaid monthly invoice with its total, and not on a paid one", async () => {
    const o = await owner();
    const line = lineFromGross({ description: "Growth plan", itemCode: "JMB-PLAN", quantity: 1, unit: "month", unitPriceCents: 580_000 });
    const invoice = (status: "pending" | "paid") =>
      db().transaction((tx) =>
        issueInvoice(tx, {
          organizationId: o.organizationId,
          series: "INV",
          kind: "subscription",
          status,
          description: "Growth plan, November 2026",
          lines: [line],
          pricesIncludeVat: true,
          paidAt: status === "paid" ? new Date() : null,
        }),
      );
    const unpaid = await invoice("pending");
    expect(paybillIn(await page(`/billing/invoices/${unpaid.id}`, o.cookie))).toEqual({
      businessNumber: SHORTCODE,
      accountNumber: o.businessId,
      amount: "KES 5,800.00",
    });
    const paid = await invoice("paid");
    expect(paybillIn(await page(`/billing/invoices/${paid.id}`, o.cookie))).toBeNull();
  });
});
