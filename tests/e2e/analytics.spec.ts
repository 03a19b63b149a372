import { readFile } from "node:fs/promises";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { DEMO, field, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 18: Advanced Analytics with JavaScript on and off, on the demo Sacco's 90 days of history.
// Every filter is in the URL (a GET form and links). The page is a document without React (decision
// 066): the same page with scripts on and off.

const HOUR_OF_DAY = "Messages by hour of the day (Nairobi time)";
const PER_HOUR = "Messages per hour, last 24 hours (Nairobi time)";

const figure = (page: Page, label: string) => page.getByTestId(`stat-${label.toLowerCase().replace(/\W+/g, "-")}`);
const seriesLink = (page: Page, name: string) => page.getByRole("group", { name: "Series shown" }).getByRole("link", { name, exact: true });
const chartTable = (page: Page) => page.locator("figure .sr-only table");

async function apply(page: Page, choice: { period: string; from?: string; to?: string }) {
  await page.getByRole("combobox", { name: "Period" }).selectOption(choice.period);
  if (choice.from !== undefined) await field(page, "From (custom range)").fill(choice.from);
  if (choice.to !== undefined) await field(page, "To (custom range)").fill(choice.to);
  await page.getByRole("button", { name: "Apply", exact: true }).click();
}

/** A Nairobi date `days` from today, YYYY-MM-DD. */
function nairobiDay(days: number) {
  return new Date(Date.now() + 3 * 3_600_000 + days * 86_400_000).toISOString().slice(0, 10);
}

test("the demo's figures, the period form, a refused range, the chart's series and the daily CSV", async ({ page, javaScriptEnabled }) => {
  await signIn(page, DEMO.email, DEMO.password, { to: "/analytics" });
  await expect(page).toHaveURL(/\/analytics$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Advanced Analytics");
  await expect(page.getByTestId("analytics-period")).toContainText("Last 7 days:");

  // Real figures, each with its change against the 7 days before in words.
  for (const label of ["Messages sent", "Delivered", "Read", "Unique contacts"])
    await expect(figure(page, label)).toHaveText(/^[1-9][\d,]*$/);
  await expect(figure(page, "Delivery rate")).toHaveText(/^\d+(\.\d)?%$/);
  await expect(figure(page, "Spend")).toHaveText(/^KES [1-9][\d,]*\.\d\d$/);
  await expect(figure(page, "Messages sent").locator("xpath=..")).toContainText(/vs previous 7 days|No data for the previous period/);
  await expect(page.getByRole("table", { name: "Top templates" })).toContainText("loan_repayment_reminder");
  await expect(page.getByRole("table", { name: "Messages and cost by Meta pricing category" })).toContainText("Authentication");
  // Issue 76: the period's M-Pesa payment requests, with its own CSV.
  const payments = page.getByRole("region", { name: "Payments" });
  await expect(payments.getByRole("heading", { name: "Payments", level: 2 })).toBeVisible();
  await expect(figure(page, "Requests made")).toHaveText(/^\d[\d,]*$/);
  await expect(figure(page, "KES collected")).toHaveText(/^KES \d[\d,]*$/);
  for (const name of ["By agent", "By flow", "By campaign"]) await expect(payments.getByRole("table", { name })).toBeVisible();
  const [paymentsCsv] = await Promise.all([
    page.waitForEvent("download"),
    payments.getByRole("link", { name: "Download the payments CSV" }).click(),
  ]);
  expect(paymentsCsv.suggestedFilename()).toMatch(/^jumbe-payments-\d{4}-\d\d-\d\d-to-\d{4}-\d\d-\d\d\.csv$/);
  expect((await readFile((await paymentsCsv.path())!, "utf8")).split("\r\n")[0]).toBe(
    `"Grouped by","Name","Requested","Paid","Conversion","Collected","Amount differs"`,
  );

  // The chart: Sent first; Read chosen by its link.
  await expect(page.locator("figure figcaption").first()).toHaveText(`${HOUR_OF_DAY}: Sent`);
  await expect(seriesLink(page, "Sent")).toHaveAttribute("aria-current", "true");
  await seriesLink(page, "Read").click();
  await expect(seriesLink(page, "Read")).toHaveAttribute("aria-current", "true");
  await expect(seriesLink(page, "Sent")).not.toHaveAttribute("aria-current", /.*/);
  await expect(chartTable(page).locator("thead th").last()).toHaveText("Read");
  await expect(chartTable(page).locator("caption")).toHaveText(`${HOUR_OF_DAY}: Read`);
  await expect(page).toHaveURL(/[?&]chart=read(&|$)/);
  expect(await page.evaluate(() => "__reactRouterContext" in window)).toBe(false);

  // The period form keeps the chosen series.
  await apply(page, { period: "24h" });
  await expect(page).toHaveURL(/\/analytics\?period=24h&chart=read$/);
  await expect(chartTable(page).locator("caption")).toHaveText(`${PER_HOUR}: Read`);
  await expect(page.getByRole("heading", { name: "Hour by hour" })).toBeVisible();
  await expect(page.getByTestId("analytics-period")).toHaveText("Last 24 hours, to the current hour, compared with the 24 hours before.");

  await apply(page, { period: "30d" });
  await expect(page).toHaveURL(/\/analytics\?period=30d&chart=read$/);
  await expect(page.getByTestId("analytics-period")).toContainText("Last 30 days:");
  await expect(page.locator("figure figcaption").first()).toHaveText(`${HOUR_OF_DAY}: Read`);

  const [from, to] = [nairobiDay(-20), nairobiDay(-10)];
  await apply(page, { period: "custom", from, to });
  await expect(page).toHaveURL(new RegExp(`/analytics\\?period=custom&from=${from}&to=${to}&chart=read$`));
  await expect(page.getByTestId("analytics-period")).toContainText("Custom range:");
  await expect(page.getByTestId("analytics-period")).toContainText("compared with the 11 days before.");
  await expect(figure(page, "Messages sent").locator("xpath=..")).toContainText(/vs previous 11 days|No data for the previous period/);

  // A range that ends before it starts: the reason, and the last 7 days meanwhile (the form keeps what was typed).
  await apply(page, { period: "custom", from: to, to: from });
  await expect(page.getByRole("alert")).toContainText("The end date must be on or after the start date.");
  await expect(page.getByTestId("analytics-period")).toContainText("Last 7 days:");
  await expect(field(page, "From (custom range)")).toHaveValue(to);

  // The daily CSV of the period shown: its header and first row are the table's.
  await apply(page, { period: "7d" });
  await expect(page).toHaveURL(/\/analytics\?period=7d&chart=read$/);
  const firstRow = page.getByRole("table", { name: "Figures per day" }).getByRole("row").nth(1);
  await expect(firstRow.locator("time")).toHaveAttribute("datetime", nairobiDay(-6));
  const cells = (await firstRow.getByRole("cell").allInnerTexts()).map((text) => text.trim().replace(/,/g, ""));
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download CSV" }).click()]);
  expect(download.suggestedFilename()).toBe(`jumbe-analytics-${nairobiDay(-6)}-to-${nairobiDay(0)}.csv`);
  const lines = (await readFile((await download.path())!, "utf8")).trimEnd().split("\r\n");
  expect(lines[0]).toBe("period,messagesSent,messagesDelivered,messagesRead,messagesReplied,uniqueContacts,avgResponseTime");
  expect(lines).toHaveLength(8);
  expect(lines[1]!.split(",")).toEqual([nairobiDay(-6), ...cells.slice(1).map((cell) => (cell === "–" ? "" : cell))]);

  if (!javaScriptEnabled) return;
  // axe runs as a script in the page: once, with scripts on (the markup is the same without).
  for (const path of ["/analytics?period=90d", "/dashboard"]) {
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

test("a business with no messages yet is told so plainly and pointed to the Message Center", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/analytics" });
  await expect(page.getByRole("heading", { name: "No messages in this period." })).toBeVisible();
  await expect(figure(page, "Messages sent")).toHaveText("0");
  await expect(figure(page, "Spend")).toHaveText("KES 0.00");
  // No payment requests yet: the Payments section's figures are zeros, its tables say so.
  await expect(figure(page, "Requests made")).toHaveText("0");
  await expect(figure(page, "Conversion rate")).toHaveText("None");
  await expect(figure(page, "KES collected")).toHaveText("KES 0");
  await expect(page.getByText("No team member asked for a payment in this period.")).toBeVisible();
  // A new organisation is postpaid: its usage goes on the monthly invoice.
  await expect(page.getByText("Your plan is postpaid: usage is billed on your monthly invoice.")).toBeVisible();
  await expect(page.getByRole("group", { name: "Series shown" })).toHaveCount(0);
  await page.getByRole("link", { name: "Open the Message Center" }).click();
  await expect(page).toHaveURL(/\/messaging$/);
});
