import { test, expect } from "./fixtures";
import { DEMO, signIn } from "./helpers";
import { bubble, customerNumber, openConversation } from "./inbox-helpers";
import { AT, bubbleStatus, callbackDelivered, connectSmsApp } from "./sms-helpers";

// Issue 77 (decisions 148, 150): SMS as a whole channel, with JavaScript on and off. The owner
// connects the demo Sacco to the Africa's Talking sandbox on Settings → SMS and gives the sandbox the
// page's callback addresses (as one pastes them into AT's dashboard); a customer who is not on
// WhatsApp texts the shortcode; the member answers with "Send as SMS"; the sandbox's delivery report
// turns it delivered; the customer's reply from the sandbox's phone console lands in the same
// conversation. Every wait is on the sandbox's own record of a callback, then on the page.

/** The sandbox's demo application (sandbox/africastalking/demo-account.ts), as Settings → SMS holds it. */
const DEMO_APP = {
  username: "jumbe-demo",
  apiKey: "atsk_jumbe_sandbox_demo_0000000000000000",
  senderIds: ["JUMBE"],
  shortcodes: ["40404"],
};

test("a member connects SMS, answers a customer by SMS, sees it delivered, and the customer's SMS reply lands in the same conversation", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(180_000);
  await signIn(page, DEMO.email, DEMO.password);

  // Settings → SMS: the sandbox's application, saved and tested, its callback addresses given to it.
  await connectSmsApp(page, request, DEMO_APP);
  // Where the payment request's template is set, the way to its SMS fallback (decision 159).
  await page.goto("/settings/payments");
  await page.getByRole("link", { name: "set it in Settings → SMS" }).click();
  await expect(page).toHaveURL(/\/settings\/sms#fallback-payment_request$/);
  await expect(page.locator("#fallback-payment_request")).toBeVisible();

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
