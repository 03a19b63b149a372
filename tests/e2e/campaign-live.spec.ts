import { randomInt } from "node:crypto";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { fillCampaign, number, readyBusiness } from "./campaign-helpers";

// Issue 39, figures that follow what happens: a campaign's Read figure moves after it says
// "Completed" when Meta's read receipt arrives late (live with JavaScript; a reload without), and the
// Campaigns tab and Broadcast History show the same number.

/** A number the Meta sandbox only ever says "sent" for (its last four digits 0003): its receipts come when the test sends them. */
const sentOnly = () => `07${randomInt(10, 99)} ${randomInt(10, 99)}0 003`;

/** The figure in a list's row, by its column's header. */
async function listFigure(page: Page, path: string, name: string, header: string) {
  await page.goto(path);
  const headers = await page.getByRole("columnheader").allTextContents();
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name }) });
  return row.getByRole("cell").nth(headers.findIndex((text) => text.trim() === header));
}

test("campaigns: a read receipt that arrives after Completed moves Read on its page and in the lists", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(150_000);
  const { template, wabaId } = await readyBusiness(page, request);
  const late = sentOnly();
  await page.goto("/messaging/campaigns/new");
  await fillCampaign(page, javaScriptEnabled, { name: "Molo water notice", template, phones: [number(), late] });
  await page.getByRole("button", { name: "Confirm and send to 2" }).click();
  await expect(page).toHaveURL(/\/messaging\/campaigns\/[0-9a-f-]{36}$/);
  const read = page.getByTestId("count-read");
  await expect(page.getByTestId("campaign-status")).toHaveText("Completed", { timeout: 45_000 });
  // The first person's read receipt comes a few seconds after the send: live with JavaScript, by reloading without.
  if (javaScriptEnabled) await expect(read).toHaveText("1", { timeout: 30_000 });
  else
    await expect(async () => {
      await page.reload();
      await expect(read).toHaveText("1", { timeout: 500 });
    }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("count-delivered")).toHaveText("1");
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true)).catch(() => {});

  // The second person reads it now, long after the campaign completed (Meta's webhook through the sandbox).
  const state = await (await request.get("/sandbox/meta/control/state")).json();
  const phone = state.phoneNumbers.find((p: { wabaId: string }) => p.wabaId === wabaId);
  const sent = (await (await request.get(`/sandbox/meta/control/messages?phoneNumberId=${phone.id}`)).json()).messages as {
    wamid: string;
    waId: string;
    outcome: string;
  }[];
  const message = sent.find((m) => m.outcome === "sent")!;
  const status = await request.post("/sandbox/meta/control/status", {
    data: { phoneNumberId: phone.id, wamid: message.wamid, status: "read", recipientId: message.waId },
  });
  expect(status.ok(), await status.text()).toBe(true);

  if (javaScriptEnabled) {
    // Without a reload: the page's live figures follow the campaign after it completed.
    await expect(read).toHaveText("2", { timeout: 30_000 });
    await expect(page.getByTestId("count-delivered")).toHaveText("2");
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  } else
    await expect(async () => {
      await page.reload();
      await expect(read).toHaveText("2", { timeout: 500 });
    }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("campaign-status")).toHaveText("Completed");

  // The Campaigns tab and Broadcast History show the same figure at once.
  await expect(await listFigure(page, "/messaging", "Molo water notice", "Read")).toHaveText("2");
  await expect(await listFigure(page, "/messaging", "Molo water notice", "Delivered")).toHaveText("2");
  await expect(await listFigure(page, "/messaging/broadcasts", "Molo water notice", "Read")).toHaveText("2");
});
