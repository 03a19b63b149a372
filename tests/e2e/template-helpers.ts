import type { APIRequestContext, Page } from "@playwright/test";
import { expect } from "./fixtures";
import { connectThroughDialog, expectSignupCompleteThenSetup, kenyanNumber } from "./helpers";

// What the template specs share: the /templates table, waiting for Meta's decision, and a WABA
// connected through the sandbox's Embedded Signup.

export const templatesTable = (page: Page) => page.getByRole("table", { name: "Message templates" });

export const templateRow = (page: Page, name: string) =>
  templatesTable(page)
    .getByRole("row")
    .filter({ has: page.getByRole("link", { name, exact: true }) });

const COLUMNS = ["name", "type", "language", "status", "submitted"] as const;

/** A cell of the table's row for `name`: Name, Type, Language, Status, Date submitted. */
export const templateCell = (page: Page, name: string, column: (typeof COLUMNS)[number]) =>
  templateRow(page, name).getByRole("cell").nth(COLUMNS.indexOf(column));

/**
 * Has the sandbox's reviewer decide `name` now if it is still pending at Meta (the e2e server's
 * reviewer waits ten minutes on its own, so "pending" holds on a busy machine as on a quiet one),
 * then reloads /templates (a new page load, with or without scripts) until the template shows `status`.
 */
export async function waitForTemplateStatus(page: Page, name: string, status: string) {
  const atMeta = (await (await page.request.get("/sandbox/meta/control/templates")).json()) as {
    id: string;
    name: string;
    status: string;
  }[];
  for (const template of atMeta.filter((t) => t.name === name && t.status === "PENDING")) {
    const review = await page.request.post("/sandbox/meta/control/templates/review", { data: { templateId: template.id } });
    expect(review.ok(), await review.text()).toBe(true);
  }
  await expect(async () => {
    await page.goto("/templates");
    await expect(templateCell(page, name, "status")).toHaveText(status, { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
}

/** Connects a new sandbox WABA through Embedded Signup and lands back on /whatsapp; returns its WABA id. */
export async function connectWhatsApp(page: Page, request: APIRequestContext, javaScriptEnabled: boolean, businessName: string) {
  const number = kenyanNumber();
  await page.goto("/whatsapp");
  await connectThroughDialog(page, javaScriptEnabled, number, businessName);
  await expectSignupCompleteThenSetup(page);
  const state = await (await request.get("/sandbox/meta/control/state")).json();
  const digits = number.replace(/\D/g, "");
  const phone = state.phoneNumbers.find((p: { displayPhoneNumber: string }) => p.displayPhoneNumber.replace(/\D/g, "") === digits);
  expect(phone, `the sandbox holds ${number}`).toBeTruthy();
  return phone.wabaId as string;
}
