import { randomBytes } from "node:crypto";
import { test, expect } from "./fixtures";
import {
  composer,
  connectedBusiness,
  customerNumber,
  customerWrites,
  expectSoon,
  openConversation,
  send,
  sentMessage,
} from "./inbox-helpers";

// Issue 77, decision 154: a customer who writes from a Click-to-WhatsApp ad (the Meta sandbox's made-up
// ad) arrives with the ad on their conversation; the business's answer opens Meta's 72-hour free
// entry window, which the header then shows; Contacts filters by the ad (a GET form). JavaScript on and off.

test("a conversation started from an ad shows the ad, and the answer opens the free entry window", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  const { phoneNumberId } = await connectedBusiness(page, request);
  const name = `Akinyi ${randomBytes(2).toString("hex")}`;
  const other = `Baraka ${randomBytes(2).toString("hex")}`;
  await customerWrites(request, { phoneNumberId, from: customerNumber(), name: other, text: "Habari, bei ya mbolea?" });
  const headline = `Tanki la lita 1000 ${randomBytes(2).toString("hex")}`;
  await customerWrites(request, {
    phoneNumberId,
    from: customerNumber(),
    name,
    text: "Habari! Naomba bei ya tanki.",
    ad: { sourceId: "120226305854810726", headline, body: "Bei ya leo tu" },
  });
  await openConversation(page, javaScriptEnabled, name);
  const header = page.locator("#inbox-header");
  await expect(header.getByRole("link", { name: `From ad: ${headline}` })).toHaveAttribute("href", /^https:\/\/fb\.me\//);
  await expect(header.getByTestId("free-entry")).toHaveCount(0);

  const answer = `Karibu ${name}! Tanki ni KES 12,500.`;
  await composer(page).getByLabel("Message", { exact: true }).fill(answer);
  await send(page, javaScriptEnabled);
  await sentMessage(request, phoneNumberId, answer);
  await expectSoon(page, javaScriptEnabled, async () => {
    await expect(header.getByTestId("free-entry")).toHaveText(/^Ad's free entry window: messages free for (71 h \d+ min|72 h)$/, {
      timeout: javaScriptEnabled ? 30_000 : 2_000,
    });
  });

  // Contacts: "Came from an ad" keeps the customer from the ad and leaves the other out.
  await page.goto("/messaging/contacts");
  const row = (who: string) => page.getByRole("row").filter({ has: page.getByRole("link", { name: who, exact: true }) });
  await expect(row(other)).toBeVisible();
  await page.getByLabel("Came from an ad").selectOption({ label: `${headline} (120226305854810726)` });
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/ad=120226305854810726/);
  await expect(row(name)).toBeVisible();
  await expect(row(other)).toHaveCount(0);
  await page.getByLabel("Came from an ad").selectOption({ label: "Any ad" });
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/ad=any/);
  await expect(row(name)).toBeVisible();
  await expect(row(other)).toHaveCount(0);
});
