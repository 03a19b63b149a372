import createAfricastalking from "africastalking";
import common from "africastalking/lib/common.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  API_KEY,
  SENDER_ID,
  SHORTCODE,
  startAfricastalking,
  USERNAME,
  type AfricastalkingHarness,
} from "@jumbe/sandbox/africastalking/test-support";

/**
 * The Africa's Talking sandbox (sandbox/africastalking) driven by the official `africastalking` 0.8.3
 * Node client. It takes no base URL: `lib/common.js` computes https URLs once and exports them
 * (`SMS_URL`, `USER_URL`, ...), which `sms.send` and `sms.fetchMessages` read at each call; this file
 * sets `SMS_URL` and `USER_URL` on that module to the sandbox's loopback address after constructing the
 * client and changes nothing else. (With username "sandbox" the client would switch those exports to
 * AT's own sandbox for the whole process: the multi-tenant trap decision 145 avoids; the accounts here
 * are not named "sandbox".)
 *
 * Not covered: `application.fetchApplicationData` (the balance) builds its own axios instance on a
 * hardcoded https://api.africastalking.com, not on `USER_URL`, so it cannot be pointed at the sandbox
 * without patching the library; the balance (`GET /version1/user`) is checked with the client's own
 * axios and headers instead, below.
 */
let h: AfricastalkingHarness;
const original = { SMS_URL: common.SMS_URL, USER_URL: common.USER_URL };
beforeAll(async () => {
  h = await startAfricastalking();
});
afterAll(async () => {
  common.SMS_URL = original.SMS_URL;
  common.USER_URL = original.USER_URL;
  await h.close();
});
beforeEach(async () => {
  await h.sandbox.flush();
  h.sandbox.reset();
  h.receiver.received.length = 0;
});

function africastalking(apiKey = API_KEY) {
  const client = createAfricastalking({ username: USERNAME, apiKey });
  expect(common.SMS_URL).toBe("https://api.africastalking.com/version1/messaging");
  common.SMS_URL = `${h.base}/version1/messaging`;
  common.USER_URL = `${h.base}/version1/user`;
  return client;
}

beforeEach(() => {
  common.SMS_URL = original.SMS_URL;
  common.USER_URL = original.USER_URL;
});

const MESSAGE_ID = /^ATXid_[0-9a-f]{32}$/;

describe("sms.send", () => {
  it("sends to one number from the sender ID: the SDK resolves the 201 answer", async () => {
    const at = africastalking();
    const answer = await at.SMS.send({ to: "+254712345678", message: "Order #42 received", from: SENDER_ID, enqueue: true });
    expect(answer).toEqual({
      SMSMessageData: {
        Message: "Sent to 1/1 Total Cost: KES 0.8000",
        Recipients: [
          { statusCode: 101, number: "+254712345678", status: "Success", cost: "KES 0.8000", messageId: expect.stringMatching(MESSAGE_ID) },
        ],
      },
    });
    expect(h.sandbox.sent()[0]).toMatchObject({ from: SENDER_ID, enqueue: true, message: "Order #42 received" });
  });

  it("sends to several numbers (the SDK joins them with commas), one of them refused by its magic number", async () => {
    const at = africastalking();
    const answer = await at.SMS.send({ to: ["+254712345678", "+254733123456", "+254700000406"], message: "Karibu tena" });
    expect(answer.SMSMessageData.Message).toBe("Sent to 2/3 Total Cost: KES 1.6000");
    expect(answer.SMSMessageData.Recipients.map((r) => [r.number, r.statusCode, r.status])).toEqual([
      ["+254712345678", 101, "Success"],
      ["+254733123456", 101, "Success"],
      ["+254700000406", 406, "UserInBlacklist"],
    ]);
    await h.sandbox.flush();
    expect(h.forms().map((f) => f.status)).toEqual(["Success", "Success"]);
  });

  it("refuses a bad number itself, before any request (the SDK validates with libphonenumber)", async () => {
    const at = africastalking();
    await expect(at.SMS.send({ to: "0712", message: "Hi" })).rejects.toThrow(/"to" failed custom validation/);
    expect(h.sandbox.sent()).toEqual([]);
  });

  it("sends an unregistered sender's recipients back as 402 InvalidSenderId", async () => {
    const at = africastalking();
    const answer = await at.SMS.send({ to: "+254712345678", message: "Hi", from: "NOTOURS" });
    expect(answer.SMSMessageData.Recipients).toEqual([
      { statusCode: 402, number: "+254712345678", status: "InvalidSenderId", cost: "0", messageId: "None" },
    ]);
  });

  it("surfaces a wrong key as axios surfaces a 401: the error's response, its plain-text body", async () => {
    const at = africastalking("atsk_not_the_key_0000");
    const error = await at.SMS.send({ to: "+254712345678", message: "Hi" }).then(
      () => undefined,
      (e: { response?: { status: number; data: unknown } }) => e,
    );
    expect(error?.response).toMatchObject({ status: 401, data: "The supplied authentication is invalid" });
  });
});

describe("sms.fetchMessages", () => {
  it("answers the incoming SMS after lastReceivedId", async () => {
    h.sandbox.receive({ from: "+254712345678", to: SHORTCODE, text: "Bei ya unga?" });
    h.sandbox.receive({ from: "+254733123456", to: SHORTCODE, text: "ACHA" });
    const at = africastalking();
    const all = await at.SMS.fetchMessages({});
    expect(all.SMSMessageData.Messages).toEqual([
      {
        linkId: expect.any(String),
        text: "Bei ya unga?",
        to: SHORTCODE,
        id: expect.any(Number),
        date: expect.any(String),
        from: "+254712345678",
      },
      { linkId: expect.any(String), text: "ACHA", to: SHORTCODE, id: expect.any(Number), date: expect.any(String), from: "+254733123456" },
    ]);
    const after = await at.SMS.fetchMessages({ lastReceivedId: all.SMSMessageData.Messages[0]!.id });
    expect(after.SMSMessageData.Messages.map((m) => m.text)).toEqual(["ACHA"]);
  });
});

describe("the balance (GET /version1/user)", () => {
  it("answers UserData.balance to the headers the client's application call sends", async () => {
    africastalking();
    const response = await fetch(`${common.USER_URL}?username=${USERNAME}`, { headers: { apiKey: API_KEY, Accept: "application/json" } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ UserData: { balance: "KES 100.0000" } });
  });
});
