import { afterEach, describe, expect, it } from "vitest";
import { messageValues, startSending, type SendingHarness } from "./test-support";

// The console shows a reply-button message's buttons, and tapping one posts the customer's
// button_reply webhook in reply to that message, as WhatsApp does (a plain form: no JavaScript).

let h: SendingHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CUSTOMER = "254712345678";

describe("the console's reply buttons", () => {
  it("taps a button as the customer, answering the message it belongs to", async () => {
    h = await startSending();
    await h.customerWrites(CUSTOMER);
    const sent = await h.send({
      messaging_product: "whatsapp",
      to: `+${CUSTOMER}`,
      type: "interactive",
      interactive: {
        type: "button",
        body: { text: "Duka la Mama Njeri asks you to pay KES 1,250" },
        action: { buttons: [{ type: "reply", reply: { id: "payreq:abc:pay", title: "Pay with M-Pesa" } }] },
      },
    });
    expect(sent.status).toBe(200);
    const wamid = sent.json.messages[0].id;
    const html = await (await fetch(h.base)).text();
    expect(html).toContain("asks you to pay KES 1,250");
    expect(html).toContain(`<input type="hidden" name="contextId" value="${wamid}">`);
    expect(html).toContain('<input type="hidden" name="replyId" value="payreq:abc:pay">');
    expect(html).toContain('<button type="submit">Tap “Pay with M-Pesa”</button>');

    const tapped = await fetch(`${h.base}/console/tap`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        phoneNumberId: h.business.phoneNumberId,
        from: CUSTOMER,
        contextId: wamid,
        replyId: "payreq:abc:pay",
        title: "Pay with M-Pesa",
      }).toString(),
      redirect: "manual",
    });
    expect(tapped.status).toBe(303);
    expect(new URL(tapped.headers.get("location") ?? "", h.base).searchParams.get("notice") ?? "").toContain('Tapped "Pay with M-Pesa"');
    await h.sandbox.flushWebhooks();
    const messages = messageValues(h.receiver.received).flatMap((v) => v.messages ?? []);
    const reply = messages.find((m) => (m as { type?: string }).type === "interactive");
    expect(reply).toMatchObject({
      from: CUSTOMER,
      context: { id: wamid },
      interactive: { type: "button_reply", button_reply: { id: "payreq:abc:pay", title: "Pay with M-Pesa" } },
    });
  });
});
