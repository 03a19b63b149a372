import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FAILURE_REASONS } from "./magic";
import { SENDER_ID, SHORTCODE, startAfricastalking, USERNAME, type AfricastalkingHarness } from "./test-support";

let h: AfricastalkingHarness;
beforeAll(async () => {
  h = await startAfricastalking();
});
afterAll(async () => {
  await h.close();
});
beforeEach(async () => {
  await h.sandbox.flush();
  h.sandbox.reset();
  h.receiver.received.length = 0;
});

async function sendTo(number: string) {
  const answer = await h.send({ to: number, message: "Habari", from: SENDER_ID });
  await h.sandbox.flush();
  return answer.json().SMSMessageData.Recipients[0]!;
}

describe("delivery reports", () => {
  it("posts a form report of Success for an ordinary number, networkCode 99999 as AT's sandbox", async () => {
    const recipient = await sendTo("+254712345678");
    expect(h.forms()).toEqual([
      { id: recipient.messageId, status: "Success", phoneNumber: "+254712345678", networkCode: "99999", retryCount: "0" },
    ]);
    expect(h.receiver.received[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(h.sandbox.sent()[0]!.recipients[0]!.reported).toBe("Success");
  });

  it.each(FAILURE_REASONS.map((reason, i) => [`+2547000011${String(i + 1).padStart(2, "0")}`, reason]))(
    "reports %s Failed with failureReason %s",
    async (number, failureReason) => {
      const recipient = await sendTo(number);
      expect(recipient.statusCode).toBe(101);
      expect(h.forms()).toEqual([
        { id: recipient.messageId, status: "Failed", phoneNumber: number, networkCode: "99999", failureReason, retryCount: "0" },
      ]);
    },
  );

  it("reports Rejected, Buffered then Success, and a late Success", async () => {
    await sendTo("+254700001200");
    await sendTo("+254700001300");
    await sendTo("+254700001400");
    expect(h.forms().map((f) => [f.phoneNumber, f.status, f.failureReason])).toEqual([
      ["+254700001200", "Rejected", "DeliveryFailure"],
      ["+254700001300", "Buffered", undefined],
      ["+254700001300", "Success", undefined],
      ["+254700001400", "Success", undefined],
    ]);
    expect(h.sandbox.callbacks().at(-1)).toMatchObject({ late: true, state: "delivered" });
  });

  it("holds a late report until its delay or a flush", async () => {
    const slow = await startAfricastalking({ lateReportDelayMs: 600_000 });
    try {
      await slow.send({ to: "+254700001400,+254712345678", message: "Hi" });
      const ordinary = slow.sandbox.callbacks().find((c) => c.status === "Success" && !c.late)!;
      expect(ordinary).toBeDefined();
      await slow.sandbox.flush();
      expect(slow.sandbox.callbacks().every((c) => c.state === "delivered")).toBe(true);
    } finally {
      await slow.close();
    }
  });

  it("gives the Kenyan network codes when asked", async () => {
    const kenya = await startAfricastalking({ networkCodes: "kenya" });
    try {
      await kenya.send({ to: "+254712345678,+254733123456,+254770123456,+254763123456", message: "Hi" });
      await kenya.sandbox.flush();
      expect(
        kenya
          .forms()
          .map((f) => f.networkCode)
          .sort(),
      ).toEqual(["63902", "63903", "63907", "63999"]);
    } finally {
      await kenya.close();
    }
  });

  it("retries until the receiver answers 200, at most the attempts set", async () => {
    h.receiver.answer(500, 503);
    await sendTo("+254712345678");
    expect(h.sandbox.callbacks()[0]).toMatchObject({ state: "delivered", attempts: [{ status: 500 }, { status: 503 }, { status: 200 }] });
    h.receiver.answer(500, 500, 500);
    await sendTo("+254712345678");
    expect(h.sandbox.callbacks()[1]).toMatchObject({ state: "failed", attempts: [{ status: 500 }, { status: 500 }, { status: 500 }] });
  });

  it("chaos: duplicates every report and reverses a message's reports", async () => {
    h.sandbox.setChaos({ duplicate: 1, reorder: true });
    await sendTo("+254700001300");
    expect(h.forms().map((f) => f.status)).toEqual(["Success", "Success", "Buffered", "Buffered"]);
    const ids = new Set(h.forms().map((f) => f.id));
    expect(ids.size).toBe(1);
  });

  it("records a report with no URL as failed", async () => {
    h.sandbox.setAccount({ username: USERNAME, apiKey: "atsk_sandbox_tests_0123456789abcdef", senderIds: [SENDER_ID] });
    await sendTo("+254712345678");
    expect(h.sandbox.callbacks()[0]).toMatchObject({
      state: "failed",
      url: null,
      attempts: [{ error: expect.stringContaining("No delivery callback URL") }],
    });
  });
});

describe("incoming messages and opt-outs", () => {
  it("posts an incoming SMS to the account's URL with AT's fields", async () => {
    const outcome = h.sandbox.receive({ from: "+254712345678", to: SHORTCODE, text: "ACHA" });
    expect(outcome.ok).toBe(true);
    await h.sandbox.flush();
    expect(h.forms()).toEqual([
      {
        date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        from: "+254712345678",
        id: expect.stringMatching(/^\d+$/),
        linkId: expect.any(String),
        text: "ACHA",
        to: SHORTCODE,
        networkCode: "99999",
      },
    ]);
    expect(h.sandbox.receive({ from: "+254712345678", to: "99999", text: "Hi" })).toMatchObject({ ok: false, status: 404 });
    expect(h.sandbox.receive({ from: "0712", to: SHORTCODE, text: "Hi" })).toMatchObject({ ok: false, status: 400 });
  });

  it("posts an opt-out, after which that sender's sends to the number answer 406", async () => {
    expect(h.sandbox.optOut({ senderId: SENDER_ID, phoneNumber: "+254712345678" }).ok).toBe(true);
    await h.sandbox.flush();
    expect(h.forms()).toEqual([{ senderId: SENDER_ID, phoneNumber: "+254712345678" }]);
    const answer = await h.send({ to: "+254712345678", message: "Hi", from: SENDER_ID });
    expect(answer.json().SMSMessageData.Recipients[0]).toMatchObject({ statusCode: 406, status: "UserInBlacklist" });
    const other = await h.send({ to: "+254712345678", message: "Hi", from: SHORTCODE });
    expect(other.json().SMSMessageData.Recipients[0]).toMatchObject({ statusCode: 101 });
  });
});
