import type { APIRequestContext, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { DEMO, signIn } from "./helpers";
import { bubble, customerNumber, openConversation } from "./inbox-helpers";

// Issue 77 (decisions 148, 150): SMS as a whole channel, with JavaScript on and off. The owner
// connects the demo Sacco to the Africa's Talking sandbox on Settings → SMS and gives the sandbox the
// page's callback addresses (as one pastes them into AT's dashboard); a customer who is not on
// WhatsApp texts the shortcode; the member answers with "Send as SMS"; the sandbox's delivery report
// turns it delivered; the customer's reply from the sandbox's phone console lands in the same
// conversation. Every wait is on the sandbox's own record of a callback, then on the page.

const AT = "/sandbox/africastalking";
/** The sandbox's demo application (sandbox/africastalking/demo-account.ts), as Settings → SMS holds it. */
const DEMO_APP = {
  username: "jumbe-demo",
  apiKey: "atsk_jumbe_sandbox_demo_0000000000000000",
  senderIds: ["JUMBE"],
  shortcodes: ["40404"],
};

interface Callback {
  kind: "delivery" | "incoming" | "optout";
  body: string;
  status?: string;
  state: "pending" | "delivered" | "failed";
  attempts: { status: number | null }[];
}

/** Waits until the sandbox has posted a callback of `kind` whose form matches, and Jumbe answered 200. */
async function callbackDelivered(request: APIRequestContext, kind: Callback["kind"], matches: (form: URLSearchParams) => boolean) {
  await expect
    .poll(
      async () => {
        const answer = await request.get(`${AT}/control/callbacks`);
        const { callbacks } = (await answer.json()) as { callbacks: Callback[] };
        const mine = callbacks.filter((c) => c.kind === kind && matches(new URLSearchParams(c.body)));
        return mine.map((c) => `${c.state} ${c.attempts.at(-1)?.status ?? "-"}`);
      },
      { timeout: 60_000 },
    )
    .toContain("delivered 200");
}

/** The thread's bubble of `text` has `status`, the page loaded anew until it does (no live update without scripts). */
async function bubbleStatus(page: Page, url: string, text: string, status: string) {
  await expect
    .poll(
      async () => {
        await page.goto(url);
        return (await bubble(page, text).first().getAttribute("data-status")) ?? "absent";
      },
      { timeout: 60_000 },
    )
    .toBe(status);
}

test("a member connects SMS, answers a customer by SMS, sees it delivered, and the customer's SMS reply lands in the same conversation", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(180_000);
  await signIn(page, DEMO.email, DEMO.password);

  // Settings → SMS: the sandbox's application, saved and tested.
  await page.goto("/settings/sms");
  await page.getByLabel("Username").fill(DEMO_APP.username);
  await page.getByLabel("API key").fill(DEMO_APP.apiKey);
  await page.getByLabel("Sender ID or shortcode").fill("JUMBE");
  await page.getByRole("button", { name: /^(Save|Connect)$/ }).click();
  await expect(page.getByText(/SMS settings saved|Nothing changed/)).toBeVisible();
  await page.getByRole("button", { name: "Test connection" }).click();
  await expect(page.getByText(/Africa's Talking answered/)).toBeVisible();
  const addresses = page.locator("dl dd code");
  const delivery = (await addresses.filter({ hasText: /\/delivery$/ }).textContent())!.trim();
  const incoming = (await addresses.filter({ hasText: /\/incoming$/ }).textContent())!.trim();
  const optOut = (await addresses.filter({ hasText: /\/optout$/ }).textContent())!.trim();
  const given = await request.put(`${AT}/control/accounts/${DEMO_APP.username}`, {
    data: { ...DEMO_APP, deliveryReportUrl: delivery, incomingUrl: incoming, optOutUrl: optOut },
  });
  expect(given.ok()).toBe(true);

  // A customer not on WhatsApp texts the shortcode: a conversation named by their number.
  const phone = `+${customerNumber()}`;
  const first = `Habari, bei ya mbolea ni ngapi? (${test.info().project.name})`;
  expect((await request.post(`${AT}/control/incoming`, { data: { from: phone, to: "40404", text: first } })).ok()).toBe(true);
  await callbackDelivered(request, "incoming", (form) => form.get("from") === phone);
  const conversationId = await openConversation(page, javaScriptEnabled, phone);
  const url = `/chat/${conversationId}`;
  await expect(bubble(page, first)).toHaveAttribute("data-channel", "sms");

  // Send as SMS: priced first, then sent; AT's delivery report turns it delivered.
  await page.getByRole("link", { name: "Send as SMS" }).click();
  await expect(page).toHaveURL(new RegExp(`/chat/${conversationId}/sms`));
  const answer = `Mbolea ni KES 3,200 kwa mfuko. Karibu! (${test.info().project.name})`;
  await page.getByLabel("SMS text").fill(answer);
  await page.getByRole("button", { name: "Check the price" }).click();
  await expect(page.getByTestId("sms-estimate")).toContainText("1 part");
  await page.getByRole("button", { name: "Send as SMS" }).click();
  await expect(page.getByText(/SMS queued: 1 part/)).toBeVisible();
  await callbackDelivered(request, "delivery", (form) => form.get("phoneNumber") === phone && form.get("status") === "Success");
  await bubbleStatus(page, url, answer, "delivered");
  await expect(bubble(page, answer)).toHaveAttribute("data-channel", "sms");

  // The customer's reply from the sandbox's phone console.
  const reply = `Asante, nitakuja kesho. (${test.info().project.name})`;
  await page.goto(AT);
  await page.getByLabel("Or another number").first().fill(phone);
  await page.getByRole("textbox", { name: "Message" }).fill(reply);
  await page.getByRole("button", { name: "Send SMS" }).click();
  await callbackDelivered(request, "incoming", (form) => form.get("text") === reply);
  await page.goto(url);
  await expect(bubble(page, reply)).toHaveAttribute("data-channel", "sms");
  await expect(
    page
      .getByTestId("thread")
      .locator("li[data-message]")
      .filter({ hasText: "(" + test.info().project.name + ")" }),
  ).toHaveCount(3);
});
