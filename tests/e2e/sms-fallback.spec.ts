import { randomBytes, randomInt } from "node:crypto";
import { test, expect } from "./fixtures";
import { fillCampaign, readyBusiness } from "./campaign-helpers";
import { bubble, openConversation } from "./inbox-helpers";
import { AT, bubbleStatus, callbackDelivered, connectSmsApp, smsSentTo } from "./sms-helpers";

// Issue 77 (decision 152), "Done when": a campaign to three customers, one not on WhatsApp, reaches
// that one by SMS exactly once, the delivery report arrives, and their SMS reply lands in the same
// conversation, with JavaScript on and off. The business has its own Africa's Talking application in
// the sandbox. The customer not on WhatsApp texted the shortcode earlier (so SMS quiet hours, which
// spare a customer who wrote in the last day, never hold the test's SMS back).

/** A Kenyan number the Meta sandbox fails with 131026 "Message undeliverable" (its last four digits 0000). */
const notOnWhatsApp = () => `+2547${randomInt(10, 99)}${randomInt(10, 99)}0000`;
const reachable = () => `+2547${randomInt(10, 99)}${randomInt(100, 999)}${randomInt(100, 999)}`;

test("a campaign to three reaches the one not on WhatsApp by SMS once; its report arrives and the SMS reply joins the conversation", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(240_000);
  const { template } = await readyBusiness(page, request);
  const suffix = randomBytes(3).toString("hex");
  const shortcode = String(randomInt(20_000, 99_999));
  await connectSmsApp(
    page,
    request,
    { username: `maji-${suffix}`, apiKey: `atsk_maji_${suffix}_sandbox`, senderIds: ["MAJI"], shortcodes: [shortcode] },
    { create: true },
  );

  // The customer without WhatsApp asked by SMS a while ago.
  const phone = notOnWhatsApp();
  const asked = `Maji yatarudi lini? (${test.info().project.name})`;
  expect((await request.post(`${AT}/control/incoming`, { data: { from: phone, to: shortcode, text: asked } })).ok()).toBe(true);
  await callbackDelivered(request, "incoming", (form) => form.get("from") === phone);

  // The campaign to three, with an SMS of its own for anyone WhatsApp cannot reach.
  const sms = `Habari {{1}}, maji yatakatika Jumanne. Hifadhi maji. (${test.info().project.name})`;
  const said = sms.replace("{{1}}", "Mteja");
  await page.goto("/messaging/campaigns/new");
  await fillCampaign(page, javaScriptEnabled, {
    name: `Water notice ${suffix}`,
    template,
    phones: [reachable(), reachable(), phone],
    smsFallback: sms,
  });
  await expect(page.getByText(/up to KES .* more if all 3 are reached by SMS instead/)).toBeVisible();
  await page.getByRole("button", { name: "Confirm and send to 3" }).click();
  await expect(page).toHaveURL(/\/messaging\/campaigns\/[0-9a-f-]{36}$/);
  const campaignUrl = new URL(page.url()).pathname;

  // WhatsApp says undeliverable for that one: its SMS goes out, Africa's Talking reports it delivered.
  await callbackDelivered(request, "delivery", (form) => form.get("phoneNumber") === phone && form.get("status") === "Success");
  await expect
    .poll(
      async () => {
        await page.goto(campaignUrl);
        return (await page.getByTestId("campaign-sms-fallback").textContent())?.trim() ?? "";
      },
      { timeout: 60_000 },
    )
    .toMatch(/^1 sent by SMS, 0 waiting/);
  expect(await smsSentTo(request, phone)).toEqual([said]);

  // In the customer's conversation: their question, the SMS delivered, and then their SMS reply.
  const conversationId = await openConversation(page, javaScriptEnabled, phone);
  const url = `/chat/${conversationId}`;
  await expect(bubble(page, asked)).toHaveAttribute("data-channel", "sms");
  await bubbleStatus(page, url, said, "delivered");
  await expect(bubble(page, said)).toHaveAttribute("data-channel", "sms");
  const reply = `Asante, nitahifadhi. (${test.info().project.name})`;
  expect((await request.post(`${AT}/control/incoming`, { data: { from: phone, to: shortcode, text: reply } })).ok()).toBe(true);
  await callbackDelivered(request, "incoming", (form) => form.get("text") === reply);
  await page.goto(url);
  await expect(bubble(page, reply)).toHaveAttribute("data-channel", "sms");

  // Still one SMS: the campaign's page again, and the sandbox's record.
  await page.goto(campaignUrl);
  await expect(page.getByTestId("campaign-sms-fallback")).toContainText("1 sent by SMS");
  expect(await smsSentTo(request, phone)).toHaveLength(1);
});
