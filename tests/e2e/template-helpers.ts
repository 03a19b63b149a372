import type { Page } from "@playwright/test";
import { expect } from "./fixtures";
import { kenyanNumber } from "./helpers";

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

/**
 * Connects a new sandbox WABA for the signed-in account and returns its WABA id: what the Embedded
 * Signup dialog does without JavaScript, over HTTP with the page's cookies (the /whatsapp page's link
 * to the dialog, the dialog's Finish with a new test business, Jumbe's callback). For tests whose
 * subject comes after connecting: it spares four page loads and the callback page's 2 s hop. The
 * dialog itself, with and without JavaScript, is the subject of whatsapp.spec.ts and first-journey.spec.ts.
 */
export async function connectWhatsApp(page: Page, businessName: string) {
  const number = kenyanNumber();
  const setup = await page.request.get("/whatsapp");
  expect(setup.status()).toBe(200);
  const link = /<a href="([^"]+)"[^>]*data-testid="connect-whatsapp"/.exec(await setup.text())?.[1];
  expect(link, "the /whatsapp page links to the sandbox's dialog").toBeTruthy();
  const dialog = new URL(link!.replace(/&amp;/g, "&"), "http://jumbe.test");
  const finish = await page.request.post(dialog.pathname, {
    form: {
      ...Object.fromEntries(dialog.searchParams),
      asset: "new",
      business_name: businessName,
      verified_name: businessName,
      phone_number: number,
      action: "finish",
    },
    maxRedirects: 0,
  });
  expect(finish.status(), await finish.text()).toBe(303);
  const callback = new URL(finish.headers()["location"]!);
  const wabaId = callback.searchParams.get("shared_waba_id");
  expect(wabaId, "the dialog hands back the new WABA").toBeTruthy();
  // Jumbe's callback spends the code and shows the outcome (following its redirect to ?outcome=).
  const outcome = await page.request.get(`${callback.pathname}${callback.search}`);
  expect(await outcome.text()).toContain('data-state="success"');
  return wabaId!;
}
