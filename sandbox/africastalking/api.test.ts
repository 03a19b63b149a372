import { afterAll, beforeEach, beforeAll, describe, expect, it } from "vitest";
import { SLOW_ANSWER_NUMBER } from "./magic";
import { API_KEY, SENDER_ID, SHORTCODE, startAfricastalking, USERNAME, type AfricastalkingHarness } from "./test-support";

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

const MESSAGE_ID = /^ATXid_[0-9a-f]{32}$/;

describe("POST /version1/messaging", () => {
  it("sends to one number: 201, the recipient's status, cost and id, the total", async () => {
    const answer = await h.send({ to: "+254712345678", message: "Order #42 received", from: SENDER_ID, enqueue: "1" });
    expect(answer.status).toBe(201);
    expect(answer.type).toMatch(/application\/json/);
    expect(answer.json()).toEqual({
      SMSMessageData: {
        Message: "Sent to 1/1 Total Cost: KES 0.8000",
        Recipients: [
          { statusCode: 101, number: "+254712345678", status: "Success", cost: "KES 0.8000", messageId: expect.stringMatching(MESSAGE_ID) },
        ],
      },
    });
    expect(h.sandbox.sent()[0]).toMatchObject({ from: "JUMBE", enqueue: true, parts: 1, encoding: "GSM-7" });
  });

  it("charges per part and takes it from the balance", async () => {
    const answer = await h.send({ to: "+254712345678,+254733123456", message: "x".repeat(161) });
    expect(answer.json().SMSMessageData).toMatchObject({
      Message: "Sent to 2/2 Total Cost: KES 3.2000",
      Recipients: [{ cost: "KES 1.6000" }, { cost: "KES 1.6000" }],
    });
    const balance = await h.get(`/version1/user?username=${USERNAME}`);
    expect(balance.status).toBe(200);
    expect(balance.json()).toEqual({ UserData: { balance: "KES 96.8000" } });
  });

  it("answers 405 InsufficientBalance per recipient once the balance runs out", async () => {
    h.sandbox.setBalance(USERNAME, 1);
    const answer = await h.send({ to: "+254712345678,+254733123456", message: "Habari" });
    expect(answer.status).toBe(201);
    expect(answer.json().SMSMessageData).toEqual({
      Message: "Sent to 1/2 Total Cost: KES 0.8000",
      Recipients: [
        expect.objectContaining({ statusCode: 101, status: "Success" }),
        { statusCode: 405, number: "+254733123456", status: "InsufficientBalance", cost: "0", messageId: "None" },
      ],
    });
  });

  it("refuses an unregistered sender ID for every recipient (402) and charges nothing", async () => {
    const answer = await h.send({ to: "+254712345678,+254733123456", message: "Hi", from: "NOTOURS" });
    expect(answer.json().SMSMessageData).toEqual({
      Message: "Sent to 0/2 Total Cost: 0",
      Recipients: [
        { statusCode: 402, number: "+254712345678", status: "InvalidSenderId", cost: "0", messageId: "None" },
        { statusCode: 402, number: "+254733123456", status: "InvalidSenderId", cost: "0", messageId: "None" },
      ],
    });
    expect((await h.send({ to: "+254712345678", message: "Hi", from: SHORTCODE })).json().SMSMessageData.Recipients[0]!.statusCode).toBe(
      101,
    );
  });

  it.each([
    ["+254700000401", 401, "RiskHold"],
    ["+254700000403", 403, "InvalidPhoneNumber"],
    ["0712345678", 403, "InvalidPhoneNumber"],
    ["+254700000404", 404, "UnsupportedNumberType"],
    ["+254700000406", 406, "UserInBlacklist"],
    ["+254700000407", 407, "CouldNotRoute"],
    ["+254700000500", 500, "InternalServerError"],
    ["+254700000501", 501, "GatewayError"],
    ["+254700000502", 502, "RejectedByGateway"],
  ])("answers the magic number %s with %i %s", async (number, statusCode, status) => {
    const answer = await h.send({ to: number, message: "Hi" });
    expect(answer.status).toBe(201);
    expect(answer.json().SMSMessageData.Recipients).toEqual([{ statusCode, number, status, cost: "0", messageId: "None" }]);
  });

  it("sends to the magic slow number but holds the answer: a client that gives up first never learns the id", async () => {
    const slow = await startAfricastalking({ slowAnswerMs: 600_000 });
    try {
      const call = fetch(`${slow.base}/version1/messaging`, {
        method: "POST",
        headers: { apiKey: API_KEY, "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
        body: new URLSearchParams({ username: USERNAME, to: SLOW_ANSWER_NUMBER, message: "Hi" }).toString(),
        signal: AbortSignal.timeout(300),
      });
      await expect(call).rejects.toThrow();
      await slow.sandbox.flush();
      const [sent] = slow.sandbox.sent();
      expect(sent!.recipients).toMatchObject([{ number: SLOW_ANSWER_NUMBER, statusCode: 101 }]);
      expect(slow.forms()).toMatchObject([{ id: sent!.recipients[0]!.messageId, status: "Success", phoneNumber: SLOW_ANSWER_NUMBER }]);
    } finally {
      await slow.close();
    }
    const quick = await startAfricastalking({ slowAnswerMs: 0 });
    try {
      expect((await quick.send({ to: SLOW_ANSWER_NUMBER, message: "Hi" })).json().SMSMessageData.Recipients[0]).toMatchObject({
        statusCode: 101,
      });
    } finally {
      await quick.close();
    }
  });

  it("reads the apiKey header in any case and refuses a wrong key or username with 401 in plain text", async () => {
    const ok = await fetch(`${h.base}/version1/messaging`, {
      method: "POST",
      headers: { APIKEY: API_KEY, "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams({ username: USERNAME, to: "+254712345678", message: "Hi" }).toString(),
    });
    expect(ok.status).toBe(201);
    for (const answer of [
      await h.send({ to: "+254712345678", message: "Hi" }, "wrong-key-123"),
      await h.send({ to: "+254712345678", message: "Hi" }, null),
      await h.send({ username: "someone-else", to: "+254712345678", message: "Hi" }),
    ]) {
      expect(answer.status).toBe(401);
      expect(answer.type).toMatch(/text\/plain/);
      expect(answer.text).toBe("The supplied authentication is invalid");
    }
  });

  it("refuses a missing field with 400 in plain text", async () => {
    for (const [fields, missing] of [
      [{ message: "Hi" }, "to"],
      [{ to: "+254712345678" }, "message"],
      [{ username: "", to: "+254712345678", message: "Hi" }, "username"],
    ] as const) {
      const answer = await h.send(fields);
      expect(answer.status).toBe(400);
      expect(answer.type).toMatch(/text\/plain/);
      expect(answer.text).toBe(`Request is missing required form field '${missing}'`);
    }
    expect((await h.send({ to: "+254712345678", message: "Hi", bulkSMSMode: "0" })).status).toBe(400);
  });
});

describe("GET /version1/messaging (the inbox) and /version1/user", () => {
  it("pages incoming messages 100 at a time after lastReceivedId", async () => {
    for (let i = 0; i < 102; i++) expect(h.sandbox.receive({ from: "+254712345678", to: SHORTCODE, text: `m${i}` }).ok).toBe(true);
    const first = (await h.get(`/version1/messaging?username=${USERNAME}&lastReceivedId=0`)).json() as unknown as {
      SMSMessageData: { Messages: { id: number; text: string; linkId: string; to: string; from: string; date: string }[] };
    };
    expect(first.SMSMessageData.Messages).toHaveLength(100);
    expect(first.SMSMessageData.Messages[0]).toEqual({
      id: expect.any(Number),
      text: "m0",
      linkId: expect.any(String),
      to: SHORTCODE,
      from: "+254712345678",
      date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    });
    const last = first.SMSMessageData.Messages[99]!.id;
    const second = (await h.get(`/version1/messaging?username=${USERNAME}&lastReceivedId=${last}`)).json() as unknown as typeof first;
    expect(second.SMSMessageData.Messages.map((m) => m.text)).toEqual(["m100", "m101"]);
    expect((await h.get(`/version1/messaging?username=${USERNAME}&lastReceivedId=abc`)).status).toBe(400);
    expect((await h.get(`/version1/messaging?username=${USERNAME}`, "wrong-key-123")).status).toBe(401);
  });

  it("answers the balance and refuses without the key", async () => {
    expect((await h.get(`/version1/user?username=${USERNAME}`)).json()).toEqual({ UserData: { balance: "KES 100.0000" } });
    expect((await h.get(`/version1/user?username=${USERNAME}`, null)).status).toBe(401);
    expect((await h.get(`/version1/user`)).status).toBe(400);
  });
});
