import { afterEach, describe, expect, it } from "vitest";
import { eatStamp } from "./daraja-format";
import { startHarness, type Harness } from "./test-support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function pushed(harness: Harness, phone = "254712345678", extra: Record<string, unknown> = {}) {
  const answer = await harness.push(harness.pushBody(phone, extra));
  if (answer.status !== 200) throw new Error(answer.text);
  return answer.json as { CheckoutRequestID: string; MerchantRequestID: string };
}

describe("answering a prompt through the control API", () => {
  it("accept: the callback carries ResultCode 0 as a number and the metadata by name", async () => {
    const now = Date.UTC(2023, 11, 10, 10, 34, 16); // 13:34:16 in Nairobi
    h = await startHarness({ now: () => now });
    const push = await pushed(h, "254768130105", { Amount: 1 });
    const answer = await h.control(`/prompts/${push.CheckoutRequestID}`, { outcome: "accept" });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ CheckoutRequestID: push.CheckoutRequestID, outcome: "accept", ResultCode: 0 });
    expect(answer.json.deliveries).toHaveLength(1);
    expect(answer.json.deliveries[0]).toMatchObject({ kind: "stk", status: 200, copy: 1, lost: false, url: h.receiver.url("/stk") });
    expect(h.receiver.on("/stk")).toHaveLength(1);
    const { body, headers } = h.receiver.on("/stk")[0]!;
    expect(headers["content-type"]).toBe("application/json");
    expect(body).toEqual({
      Body: {
        stkCallback: {
          MerchantRequestID: push.MerchantRequestID,
          CheckoutRequestID: push.CheckoutRequestID,
          ResultCode: 0,
          ResultDesc: "The service request is processed successfully.",
          CallbackMetadata: {
            Item: [
              { Name: "Amount", Value: 1 },
              { Name: "MpesaReceiptNumber", Value: expect.stringMatching(/^RLA[A-Z0-9]{7}$/) },
              { Name: "Balance" },
              { Name: "TransactionDate", Value: 20231210133416 },
              { Name: "PhoneNumber", Value: 254768130105 },
            ],
          },
        },
      },
    });
    expect(answer.json.callback).toEqual(body);
    expect(h.sandbox.prompt(push.CheckoutRequestID)?.receipt).toBe(body.Body.stkCallback.CallbackMetadata!.Item[1]!.Value);
  });

  it.each([
    ["cancel", 1032, "Request cancelled by user"],
    ["timeout", 1037, "DS timeout user cannot be reached"],
    ["wrong_pin", 2001, "The initiator information is invalid."],
    ["insufficient_funds", 1, "The balance is insufficient for the transaction."],
  ])("%s: ResultCode %i without CallbackMetadata, and the query says the same as a string", async (outcome, code, desc) => {
    h = await startHarness();
    const push = await pushed(h);
    const answer = await h.control(`/prompts/${push.CheckoutRequestID}`, { outcome });
    expect(answer.json).toMatchObject({ outcome, ResultCode: code, ResultDesc: desc });
    expect(h.receiver.on("/stk").map((r) => r.body)).toEqual([
      {
        Body: {
          stkCallback: {
            MerchantRequestID: push.MerchantRequestID,
            CheckoutRequestID: push.CheckoutRequestID,
            ResultCode: code,
            ResultDesc: desc,
          },
        },
      },
    ]);
    const query = await h.query(push.CheckoutRequestID);
    expect(query.json).toMatchObject({ ResultCode: String(code), ResultDesc: desc });
  });

  it("duplicate: sends the same callback N times", async () => {
    h = await startHarness();
    const push = await pushed(h);
    const answer = await h.control(`/prompts/${push.CheckoutRequestID}`, { outcome: "accept", delivery: "duplicate", duplicates: 3 });
    expect(answer.json.deliveries.map((d: { copy: number }) => d.copy)).toEqual([1, 2, 3]);
    const bodies = h.receiver.on("/stk").map((r) => r.body);
    expect(bodies).toHaveLength(3);
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });

  it("lost: sends nothing, logs it, and the query still answers the result", async () => {
    h = await startHarness();
    const push = await pushed(h);
    const answer = await h.control(`/prompts/${push.CheckoutRequestID}`, { outcome: "accept", delivery: "lost" });
    expect(answer.json.deliveries).toEqual([expect.objectContaining({ lost: true, status: null, kind: "stk" })]);
    await h.sandbox.flush();
    expect(h.receiver.received).toHaveLength(0);
    const callbacks = await h.control("/callbacks");
    expect(callbacks.json).toEqual([expect.objectContaining({ ref: push.CheckoutRequestID, lost: true })]);
    const query = await h.query(push.CheckoutRequestID);
    expect(query.status).toBe(200);
    expect(query.json.ResultCode).toBe("0");
  });

  it("delayed: the prompt is done at once, the callback waits; wait:false answers 202 before it goes", async () => {
    h = await startHarness();
    const push = await pushed(h);
    const answer = await h.control(`/prompts/${push.CheckoutRequestID}`, { outcome: "accept", delayMs: 50, wait: false });
    expect(answer.status).toBe(202);
    expect(answer.json).toMatchObject({ ResultCode: 0, plan: { delivery: "delayed", delayMs: 50 } });
    expect((await h.query(push.CheckoutRequestID)).json.ResultCode).toBe("0");
    await h.receiver.waitFor(1);
    expect(h.receiver.on("/stk")[0]!.body.Body.stkCallback.ResultCode).toBe(0);
  });

  it("records the status the callback URL answered, and an unreachable one", async () => {
    h = await startHarness();
    h.receiver.answer("/stk", { status: 503, body: "busy" });
    const push = await pushed(h);
    const answer = await h.control(`/prompts/${push.CheckoutRequestID}`, { outcome: "accept" });
    expect(answer.json.deliveries[0]).toMatchObject({ status: 503, answer: "busy" });
    const closed = await h.receiver.close().then(() => h!.receiver.origin);
    const other = await pushed(h, "254712345679", { CallBackURL: `${closed}/stk` });
    const unreachable = await h.control(`/prompts/${other.CheckoutRequestID}`, { outcome: "cancel" });
    expect(unreachable.json.deliveries[0]).toMatchObject({ status: null, error: expect.any(String) });
  });

  it("refuses bad answers: 404 unknown prompt, 409 already answered, 400 bad outcome or plan", async () => {
    h = await startHarness();
    const push = await pushed(h);
    expect((await h.control("/prompts/ws_CO_nope", { outcome: "accept" })).status).toBe(404);
    expect((await h.control(`/prompts/${push.CheckoutRequestID}`, { outcome: "pay" })).status).toBe(400);
    expect((await h.control(`/prompts/${push.CheckoutRequestID}`, { outcome: "accept", delivery: "sometimes" })).status).toBe(400);
    expect((await h.control(`/prompts/${push.CheckoutRequestID}`, { outcome: "accept", duplicates: 50 })).status).toBe(400);
    expect(h.sandbox.prompt(push.CheckoutRequestID)?.state).toBe("pending");
    expect((await h.control(`/prompts/${push.CheckoutRequestID}`, { outcome: "accept" })).status).toBe(200);
    const again = await h.control(`/prompts/${push.CheckoutRequestID}`, { outcome: "cancel" });
    expect(again.status).toBe(409);
    expect(again.json.message).toMatch(/already answered/);
    expect((await h.control("/prompts")).json).toEqual([]);
    const all = await h.control("/prompts/all");
    expect(all.json).toEqual([
      expect.objectContaining({ CheckoutRequestID: push.CheckoutRequestID, state: "done", outcome: "accept", resultCode: 0 }),
    ]);
  });

  it("a control body that is not JSON or too large answers 400 or 413", async () => {
    h = await startHarness();
    const bad = await h.call("/control/chaos", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{" });
    expect(bad.status).toBe(400);
    const big = await h.call("/control/chaos", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ x: "y".repeat(70_000) }),
    });
    expect(big.status).toBe(413);
  });
});

describe("prompts nobody answers, chaos defaults, magic numbers", () => {
  it("a prompt left alone ends as 1037 after promptTimeoutMs", async () => {
    h = await startHarness({ promptTimeoutMs: 20 });
    const push = await pushed(h);
    await h.receiver.waitFor(1);
    expect(h.receiver.on("/stk")[0]!.body.Body.stkCallback).toMatchObject({ CheckoutRequestID: push.CheckoutRequestID, ResultCode: 1037 });
    expect(h.sandbox.prompt(push.CheckoutRequestID)).toMatchObject({ state: "done", outcome: "timeout" });
  });

  it("the default delivery applies to prompts created after it is set, until reset", async () => {
    h = await startHarness();
    const before = await pushed(h, "254712345670");
    const chaos = await h.control("/chaos", { delivery: "duplicate", duplicates: 2 });
    expect(chaos.json).toEqual({ delivery: "duplicate", duplicates: 2, delayMs: 0 });
    const after = await pushed(h, "254712345671");
    await h.control(`/prompts/${before.CheckoutRequestID}`, { outcome: "accept" });
    await h.control(`/prompts/${after.CheckoutRequestID}`, { outcome: "accept" });
    const refs = h.receiver.on("/stk").map((r) => r.body.Body.stkCallback.CheckoutRequestID);
    expect(refs.filter((r) => r === before.CheckoutRequestID)).toHaveLength(1);
    expect(refs.filter((r) => r === after.CheckoutRequestID)).toHaveLength(2);
    await h.control("/reset", {});
    expect(h.sandbox.callbacks()).toEqual([]);
    expect((await h.control("/prompts")).json).toEqual([]);
    const fresh = await pushed(h, "254712345672");
    expect(h.sandbox.prompt(fresh.CheckoutRequestID)?.plan.delivery).toBe("normal");
  });

  it.each([
    ["254708374149", 0, 1],
    ["254711000000", 0, 1],
    ["254711000001", 1, 1],
    ["254711001032", 1032, 1],
    ["254711002001", 2001, 1],
    ["254711000202", 0, 2],
  ])("magic number %s answers %i by itself (%i callback(s))", async (phone, code, copies) => {
    h = await startHarness();
    const push = await pushed(h, phone);
    await h.receiver.waitFor(copies);
    await h.sandbox.flush();
    const bodies = h.receiver.on("/stk").map((r) => r.body.Body.stkCallback);
    expect(bodies).toHaveLength(copies);
    for (const body of bodies) expect(body).toMatchObject({ CheckoutRequestID: push.CheckoutRequestID, ResultCode: code });
  });

  it("magic 254711000404 pays but its callback is lost; the query tells", async () => {
    h = await startHarness();
    const push = await pushed(h, "254711000404");
    const done = await h.query(push.CheckoutRequestID);
    await h.sandbox.flush();
    expect(done.json.ResultCode).toBe("0");
    expect(h.receiver.received).toHaveLength(0);
    expect(h.sandbox.callbacks()).toEqual([expect.objectContaining({ lost: true, ref: push.CheckoutRequestID })]);
  });

  it("magic 254711001037 never answers: pending until the prompt timeout", async () => {
    h = await startHarness();
    const push = await pushed(h, "254711001037");
    await h.sandbox.flush();
    expect((await h.query(push.CheckoutRequestID)).json.errorMessage).toBe("The transaction is being processed");
    expect((await h.control<{ phone: string }[]>("/prompts")).json.map((p: { phone: string }) => p.phone)).toEqual(["254711001037"]);
    const magic = await h.control<Record<string, { label: string }>>("/magic");
    expect(magic.json["254711001037"]!.label).toMatch(/Never answers/);
  });

  it("the TransactionDate and receipt follow Nairobi's calendar", () => {
    expect(eatStamp(Date.UTC(2024, 0, 31, 21, 0, 0))).toBe("20240201000000");
  });
});
