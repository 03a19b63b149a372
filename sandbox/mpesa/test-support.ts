import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { eatStamp, stkPasswordOf } from "./daraja-format";
import { createMpesaSandbox } from "./index";
import type { MpesaSandboxOptions } from "./types";
import { keepIdleConnections, serveSandboxForTest } from "../test-server";

export const KEY = "test-consumer-key";
export const SECRET = "test-consumer-secret";
export const SHORTCODE = "174379";
export const PASSKEY = "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919";

/** A callback as Daraja posts it, with the fields the tests read: an STK result, or C2B's flat fields. */
export interface CallbackBody {
  Body: {
    stkCallback: {
      MerchantRequestID: string;
      CheckoutRequestID: string;
      ResultCode: number;
      ResultDesc: string;
      CallbackMetadata?: { Item: { Name: string; Value?: string | number }[] };
    };
  };
  MSISDN: string;
  [field: string]: unknown;
}

/** Daraja's answers, with the fields the tests read: a token, an STK request or query, or an error. */
export interface DarajaBody {
  access_token: string;
  expires_in: string;
  MerchantRequestID: string;
  CheckoutRequestID: string;
  ResponseCode: string;
  ResultCode: string;
  errorCode: string;
  errorMessage: string;
  [field: string]: unknown;
}

/** The control API's answers about one prompt: its outcome, callback deliveries, or why it was refused. */
export interface ControlBody {
  outcome: string;
  message: string;
  callback: unknown;
  deliveries: { copy: number; [field: string]: unknown }[];
  [field: string]: unknown;
}

export interface Received {
  path: string;
  /** A body that is not JSON is kept as its text, for the tests that post one on purpose. */
  body: CallbackBody;
  headers: http.IncomingHttpHeaders;
}

type Answer = { status: number; body: string } | "hang";

/**
 * A callback receiver on a free port: records each POST, answers with the queued answers for its
 * path (then 200 `{"ResultCode":0,"ResultDesc":"Accepted"}`), and lets a test wait for N posts.
 */
export async function startReceiver() {
  const received: Received[] = [];
  const queued = new Map<string, Answer[]>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0]!;
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      received.push({ path, body: body as CallbackBody, headers: req.headers });
      for (const w of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const answer = queued.get(path)?.shift() ?? { status: 200, body: '{"ResultCode":0,"ResultDesc":"Accepted"}' };
      if (answer === "hang") return;
      res.writeHead(answer.status, { "Content-Type": "application/json" }).end(answer.body);
    });
  });
  keepIdleConnections(server).listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: (path: string) => `${origin}${path}`,
    received,
    on: (path: string) => received.filter((r) => r.path === path),
    /** The next answers for a path, in order. */
    answer: (path: string, ...answers: Answer[]) => queued.set(path, [...(queued.get(path) ?? []), ...answers]),
    /** Resolves once `count` posts in all have arrived. */
    waitFor: (count: number) =>
      received.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The sandbox on a throwaway Express app at /sandbox/mpesa, a receiver, and Daraja helpers. */
export async function startHarness(overrides: Partial<MpesaSandboxOptions> = {}) {
  const receiver = await startReceiver();
  const sandbox = createMpesaSandbox({
    consumerKey: KEY,
    consumerSecret: SECRET,
    shortcode: SHORTCODE,
    passkey: PASSKEY,
    callbackDelayMs: 0,
    validationTimeoutMs: 500,
    ...overrides,
  });
  const server = await serveSandboxForTest("/sandbox/mpesa", sandbox.router);
  const { origin, base } = server;

  async function call<T = DarajaBody>(path: string, init: RequestInit & { json?: unknown; token?: string } = {}) {
    const headers = new Headers(init.headers);
    if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
    if (init.json !== undefined) headers.set("Content-Type", "application/json");
    const response = await fetch(`${base}${path}`, {
      ...init,
      headers,
      ...(init.json !== undefined ? { method: init.method ?? "POST", body: JSON.stringify(init.json) } : {}),
    });
    const text = await response.text();
    // An answer that is not JSON leaves `json` undefined; the tests that expect one read `text`.
    let json = undefined as T;
    try {
      json = JSON.parse(text) as T;
    } catch {
      /* not JSON */
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  async function token(key = KEY, secret = SECRET) {
    const answer = await call("/oauth/v1/generate?grant_type=client_credentials", {
      headers: { Authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString("base64")}` },
    });
    if (answer.status !== 200) throw new Error(`token: ${answer.text}`);
    return answer.json.access_token as string;
  }

  const timestamp = () => eatStamp(Date.now());

  /** A valid STK push body for `phone`; `extra` overrides fields. */
  function pushBody(phone: string | number = "254712345678", extra: Record<string, unknown> = {}) {
    const ts = timestamp();
    return {
      BusinessShortCode: SHORTCODE,
      Password: stkPasswordOf(SHORTCODE, PASSKEY, ts),
      Timestamp: ts,
      TransactionType: "CustomerPayBillOnline",
      Amount: 500,
      PartyA: phone,
      PartyB: SHORTCODE,
      PhoneNumber: phone,
      CallBackURL: receiver.url("/stk"),
      AccountReference: "JUMBE-TOPUP",
      TransactionDesc: "Wallet top-up",
      ...extra,
    };
  }

  async function push(body: unknown, bearer?: string) {
    return call("/mpesa/stkpush/v1/processrequest", { json: body, token: bearer ?? (await token()) });
  }

  async function query(checkoutRequestId: string, bearer?: string) {
    const ts = timestamp();
    return call("/mpesa/stkpushquery/v1/query", {
      json: {
        BusinessShortCode: SHORTCODE,
        Password: stkPasswordOf(SHORTCODE, PASSKEY, ts),
        Timestamp: ts,
        CheckoutRequestID: checkoutRequestId,
      },
      token: bearer ?? (await token()),
    });
  }

  const control = <T = ControlBody>(path: string, json?: unknown, headers: Record<string, string> = {}) =>
    call<T>(`/control${path}`, json === undefined ? { headers } : { json, headers });

  return {
    sandbox,
    receiver,
    origin,
    base,
    call,
    token,
    pushBody,
    push,
    query,
    control,
    async close() {
      await sandbox.close();
      await server.close();
      await receiver.close();
    },
  };
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;
