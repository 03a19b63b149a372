import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  API_KEY,
  SENDER_ID,
  SHORTCODE,
  startAfricastalking,
  USERNAME,
  type AfricastalkingHarness,
} from "@jumbe/sandbox/africastalking/test-support";
import { AfricastalkingError, africastalkingClient, parseAtAmount, type SendSmsInput } from "./africastalking";

let h: AfricastalkingHarness;
const servers: http.Server[] = [];
beforeAll(async () => {
  h = await startAfricastalking();
});
afterAll(async () => {
  await h.close();
});
afterEach(async () => {
  await h.sandbox.flush();
  h.sandbox.reset();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const client = () => africastalkingClient({ baseUrl: h.base, timeoutMs: 60_000 });
const input = (extra: Partial<SendSmsInput> = {}): SendSmsInput => ({
  username: USERNAME,
  apiKey: API_KEY,
  from: SENDER_ID,
  to: ["+254712345678"],
  message: "Order #42 received",
  enqueue: true,
  ...extra,
});

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AfricastalkingError) return { kind: error.kind, httpStatus: error.httpStatus, message: error.message };
    throw error;
  }
  throw new Error("the call was expected to fail");
}

/** A stand-in that answers every request with the given status, type and body. */
async function answering(status: number, body: string, type = "application/json") {
  const server = http.createServer((_req, res) => res.writeHead(status, { "Content-Type": type }).end(body));
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return africastalkingClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutMs: 60_000 });
}

describe("sendSms against the sandbox", () => {
  it("answers typed recipients with the cost in cents, the tenant's credentials sent with the call", async () => {
    const result = await client().sendSms(input({ to: ["+254712345678", "+254700000406", "+254733123456"], message: "x".repeat(161) }));
    expect(result).toEqual({
      summary: "Sent to 2/3 Total Cost: KES 3.2000",
      totalCostCents: 320,
      recipients: [
        {
          number: "+254712345678",
          statusCode: 101,
          status: "Success",
          accepted: true,
          costCents: 160,
          currency: "KES",
          cost: "KES 1.6000",
          messageId: expect.stringMatching(/^ATXid_[0-9a-f]{32}$/),
        },
        {
          number: "+254700000406",
          statusCode: 406,
          status: "UserInBlacklist",
          accepted: false,
          costCents: 0,
          currency: null,
          cost: "0",
          messageId: null,
        },
        {
          number: "+254733123456",
          statusCode: 101,
          status: "Success",
          accepted: true,
          costCents: 160,
          currency: "KES",
          cost: "KES 1.6000",
          messageId: expect.any(String),
        },
      ],
    });
    expect(h.sandbox.sent()[0]).toMatchObject({ from: SENDER_ID, enqueue: true, parts: 2 });
  });

  it("sends without a sender or enqueue as AT's default", async () => {
    await client().sendSms(input({ from: undefined, enqueue: false }));
    expect(h.sandbox.sent()[0]).toMatchObject({ from: "AFRICASTKNG", enqueue: false });
  });

  it("names a wrong key `auth` and a refused request `refused`, with AT's own words", async () => {
    expect(await failure(client().sendSms(input({ apiKey: "atsk_wrong_key_000" })))).toEqual({
      kind: "auth",
      httpStatus: 401,
      message: "Africa's Talking send: The supplied authentication is invalid",
    });
    const stub = await answering(400, "Request is missing required form field 'to'", "text/plain");
    expect(await failure(stub.sendSms(input()))).toMatchObject({
      kind: "refused",
      httpStatus: 400,
      message: expect.stringContaining("missing required form field"),
    });
  });

  it("refuses bad input before calling", async () => {
    await expect(client().sendSms(input({ to: [] }))).rejects.toThrow(TypeError);
    await expect(client().sendSms(input({ to: ["0712345678"] }))).rejects.toThrow(/E\.164/);
    await expect(client().sendSms(input({ apiKey: "has space" }))).rejects.toThrow(TypeError);
    await expect(client().sendSms(input({ message: "" }))).rejects.toThrow(/message/);
  });

  it("names a 5xx `server`, a 200 or nonsense `malformed`, an answer over the limit `malformed`, no server `network`", async () => {
    expect(await failure((await answering(502, "<html>bad gateway</html>", "text/html")).sendSms(input()))).toMatchObject({
      kind: "server",
      httpStatus: 502,
    });
    expect(await failure((await answering(200, "{}")).sendSms(input()))).toMatchObject({ kind: "malformed", httpStatus: 200 });
    expect(await failure((await answering(201, "not json")).sendSms(input()))).toMatchObject({ kind: "malformed" });
    expect(
      await failure(
        (
          await answering(
            201,
            JSON.stringify({
              SMSMessageData: { Recipients: [{ number: "+254712345678", status: "Success", statusCode: 101, cost: "lots" }] },
            }),
          )
        ).sendSms(input()),
      ),
    ).toMatchObject({ kind: "malformed" });
    expect(await failure((await answering(201, `{"pad":"${"x".repeat(1_100_000)}"}`)).sendSms(input()))).toMatchObject({
      kind: "malformed",
      message: expect.stringContaining("more than we read"),
    });
    expect(await failure(africastalkingClient({ baseUrl: "http://127.0.0.1:1", timeoutMs: 60_000 }).sendSms(input()))).toMatchObject({
      kind: "network",
      httpStatus: 0,
    });
  });
});

describe("fetchIncoming and fetchBalance against the sandbox", () => {
  it("pages the inbox after lastReceivedId", async () => {
    h.sandbox.receive({ from: "+254712345678", to: SHORTCODE, text: "Habari" });
    h.sandbox.receive({ from: "+254733123456", to: SHORTCODE, text: "ACHA" });
    const all = await client().fetchIncoming({ username: USERNAME, apiKey: API_KEY, lastReceivedId: 0 });
    expect(all).toEqual([
      {
        id: expect.any(Number),
        from: "+254712345678",
        to: SHORTCODE,
        text: "Habari",
        linkId: expect.any(String),
        date: expect.any(String),
      },
      { id: expect.any(Number), from: "+254733123456", to: SHORTCODE, text: "ACHA", linkId: expect.any(String), date: expect.any(String) },
    ]);
    expect(await client().fetchIncoming({ username: USERNAME, apiKey: API_KEY, lastReceivedId: all[1]!.id })).toEqual([]);
  });

  it("reads the balance in cents and follows a send", async () => {
    expect(await client().fetchBalance({ username: USERNAME, apiKey: API_KEY })).toEqual({
      currency: "KES",
      amountCents: 10_000,
      text: "KES 100.0000",
    });
    await client().sendSms(input());
    expect((await client().fetchBalance({ username: USERNAME, apiKey: API_KEY })).amountCents).toBe(9_920);
    expect(await failure(client().fetchBalance({ username: USERNAME, apiKey: "atsk_wrong_key_000" }))).toMatchObject({ kind: "auth" });
  });
});

describe("parseAtAmount", () => {
  it("reads AT's amounts to the cent", () => {
    expect(parseAtAmount("KES 0.8000")).toEqual({ currency: "KES", cents: 80 });
    expect(parseAtAmount("KES 1234.5650")).toEqual({ currency: "KES", cents: 123_457 });
    expect(parseAtAmount("KES 3")).toEqual({ currency: "KES", cents: 300 });
    expect(parseAtAmount("0")).toEqual({ currency: null, cents: 0 });
    expect(parseAtAmount("free")).toBeNull();
  });
});
