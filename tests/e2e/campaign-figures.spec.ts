import { randomInt } from "node:crypto";
import type { APIRequestContext, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL } from "./helpers";
import { fillCampaign, number, readyBusiness } from "./campaign-helpers";

// Issue 74, "Figures that tell the truth": the Campaigns tab follows a campaign live as its page
// does (with JavaScript without a reload, without it by refreshing itself), and failures Meta
// reports after the campaign finished reach the bell, the activity log and the dashboard: sent,
// failed with why, in English and Swahili; a template refused with 131047 says what Meta meant.

/** A number the Meta sandbox only ever says "sent" for (its last four digits 0003): its other statuses come when the test sends them. */
const sentOnly = () => `07${randomInt(10, 99)} ${randomInt(10, 99)}0 003`;

/** The cell of the list's row for `name` under the column headed `header`. */
async function listCell(page: Page, name: string, header: string) {
  const headers = await page.getByRole("columnheader").allTextContents();
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name }) });
  return row.getByRole("cell").nth(headers.findIndex((text) => text.trim() === header));
}

/** Meta fails the campaign's messages to these numbers now, with these codes (the sandbox's signed status webhook). */
async function metaFails(request: APIRequestContext, wabaId: string, failures: { to: string; code: number }[]) {
  const state = await (await request.get("/sandbox/meta/control/state")).json();
  const phone = state.phoneNumbers.find((p: { wabaId: string }) => p.wabaId === wabaId);
  const sent = (await (await request.get(`/sandbox/meta/control/messages?phoneNumberId=${phone.id}`)).json()).messages as {
    wamid: string;
    waId: string;
    to?: string;
  }[];
  for (const failure of failures) {
    const digits = `254${failure.to.replace(/\D/g, "").slice(1)}`;
    const message = sent.find((m) => m.waId === digits || m.to === digits);
    expect(message, `a message to ${digits}`).toBeTruthy();
    const status = await request.post("/sandbox/meta/control/status", {
      data: { phoneNumberId: phone.id, wamid: message!.wamid, status: "failed", recipientId: message!.waId, errorCode: failure.code },
    });
    expect(status.ok(), await status.text()).toBe(true);
  }
}

test("campaigns: the list follows live, and failures after it finished reach the bell, the log and the dashboard in English and Swahili", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(180_000);
  const { template, wabaId } = await readyBusiness(page, request);
  const [away, silent] = [sentOnly(), sentOnly()];
  const name = "Rongai water notice";
  await page.goto("/messaging/campaigns/new");
  await fillCampaign(page, javaScriptEnabled, { name, template, phones: [number(), away, silent] });
  await page.getByRole("button", { name: "Confirm and send to 3" }).click();
  await expect(page).toHaveURL(/\/messaging\/campaigns\/[0-9a-f-]{36}$/);
  const campaignPath = new URL(page.url()).pathname;
  await expect(page.getByTestId("campaign-status")).toHaveText("Completed", { timeout: 45_000 });

  // The Campaigns tab: Meta accepted all three, none has failed yet.
  await page.goto("/messaging");
  await expect(await listCell(page, name, "Sent")).toHaveText("3");
  const failed = await listCell(page, name, "Failed");
  await expect(failed).toHaveText("0");
  if (javaScriptEnabled) await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  else await expect(page.locator('meta[http-equiv="refresh"]')).toHaveCount(1);

  // Meta fails two of them now: one not on WhatsApp, one refused as a re-engagement message.
  await metaFails(request, wabaId, [
    { to: away, code: 131026 },
    { to: silent, code: 131047 },
  ]);
  // With JavaScript the table follows without a reload; without it the page refreshes itself.
  await expect(failed).toHaveText("2", { timeout: 30_000 });
  if (javaScriptEnabled) expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  await expect(await listCell(page, name, "Status")).toHaveText("Completed");

  // The bell's page: the finished notification says what happened, now.
  const said =
    "1 sent, 2 failed (1 not reachable on WhatsApp, 1 refused by WhatsApp as a re-engagement message). WhatsApp reported 2 of these failures after it finished.";
  await expect(async () => {
    await page.goto("/notifications");
    await expect(page.getByText(said)).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByRole("main").getByText(`Campaign finished: ${name}`).first()).toBeVisible();

  // The activity log and the dashboard.
  const line = `${name}: WhatsApp reported 2 more failed after it finished (1 not reachable on WhatsApp, 1 refused by WhatsApp as a re-engagement message). In all: 1 sent, 2 failed (1 not reachable on WhatsApp, 1 refused by WhatsApp as a re-engagement message).`;
  await page.goto("/activity");
  await expect(page.getByText("Campaign failures reported after it finished").first()).toBeVisible();
  await expect(page.getByText(line).first()).toBeVisible();
  await page.goto("/dashboard");
  await expect(page.getByText(line).first()).toBeVisible();

  // The campaign's page: 131047 on a template in what Meta meant.
  await page.goto(`${campaignPath}?result=failed`);
  await expect(page.getByText("WhatsApp turned it away as a re-engagement message (131047)").first()).toBeVisible();
  await expect(page.getByText("only a template can reach them")).toHaveCount(0);

  // In Swahili.
  await page.context().addCookies([{ name: "lng", value: "sw", url: BASE_URL }]);
  const reasonsSw = "hawapatikani kwenye WhatsApp: 1, zimekataliwa na WhatsApp kama ujumbe wa kumrudia mteja: 1";
  await page.goto("/notifications?lng=sw");
  await expect(
    page.getByText(
      `Matokeo: zilizotumwa 1, zilizoshindwa 2 (${reasonsSw}). WhatsApp iliripoti 2 kati ya jumbe hizi zilizoshindwa baada ya kukamilika.`,
    ),
  ).toBeVisible();
  const lineSw = `${name}: WhatsApp iliripoti jumbe zaidi zilizoshindwa baada ya kukamilika: 2 (${reasonsSw}). Jumla: zilizotumwa 1, zilizoshindwa 2 (${reasonsSw}).`;
  await page.goto("/activity?lng=sw");
  await expect(page.getByText("Kampeni: jumbe zilizoshindwa baada ya kukamilika").first()).toBeVisible();
  await expect(page.getByText(lineSw).first()).toBeVisible();
  await page.goto("/dashboard?lng=sw");
  await expect(page.getByText(lineSw).first()).toBeVisible();
  await page.goto(`${campaignPath}?result=failed&lng=sw`);
  await expect(page.getByText("WhatsApp iliukataa kama ujumbe wa kumrudia mteja (131047)").first()).toBeVisible();
});
