import { describe, expect, it } from "vitest";
import { prettyLine, withoutCallbackSecrets } from "./log";

const at = Date.UTC(2026, 10, 22, 14, 2, 11);

describe("readable development logs", () => {
  it("prints a request as method, path, status, duration and statements", () => {
    const line = JSON.stringify({
      level: 30,
      time: at,
      msg: "request",
      method: "GET",
      path: "/dashboard",
      status: 200,
      ms: 12.3,
      db: 4,
      ip: "127.0.0.1",
    });
    expect(prettyLine(line)).toBe("14:02:11 INFO  GET /dashboard 200 12.3 ms db=4\n");
  });

  it("prints a job with its outcome, and a retry's attempt", () => {
    const line = JSON.stringify({
      level: 50,
      time: at,
      msg: "job",
      queue: "mail.reset",
      jobId: 12,
      attempt: 2,
      outcome: "retrying",
      ms: 40,
      batch: 1,
      err: { message: "ECONNREFUSED", stack: "Error: ECONNREFUSED\n    at send" },
    });
    expect(prettyLine(line)).toBe(
      "14:02:11 \x1b[31mERROR\x1b[0m job mail.reset #12 retrying 40 ms attempt 2\nError: ECONNREFUSED\n    at send\n",
    );
  });

  it("prints anything else as its message and fields", () => {
    const line = JSON.stringify({ level: 40, time: at, msg: "database unavailable", sqlstate: "57P01", removed: { jobs: 2 } });
    expect(prettyLine(line)).toBe('14:02:11 \x1b[33mWARN \x1b[0m database unavailable sqlstate=57P01 removed={"jobs":2}\n');
    expect(prettyLine("not json")).toBe("not json");
  });
});

describe("M-Pesa callback secrets", () => {
  it("hides the secret segment of the callback addresses, wherever a line carries them", () => {
    expect(withoutCallbackSecrets('{"msg":"request","path":"/webhooks/mpesa/stk/6f1c0d2e/Zm9vYmFyLXNlY3JldC12YWx1ZQ"}')).toBe(
      '{"msg":"request","path":"/webhooks/mpesa/stk/6f1c0d2e/[secret]"}',
    );
    expect(withoutCallbackSecrets("POST /Webhooks/Paybill/aBc-123_xyz/confirmation failed")).toBe(
      "POST /Webhooks/Paybill/[secret]/confirmation failed",
    );
    expect(withoutCallbackSecrets("POST /webhooks/pay/tOk3n-of_a-shortcode/c2b/confirmation 200")).toBe(
      "POST /webhooks/pay/[secret]/c2b/confirmation 200",
    );
    expect(withoutCallbackSecrets("POST /webhooks/mpesa/b2c/6f1c0d2e/c2VjcmV0LWZvci1wYXlvdXQ/result 200")).toBe(
      "POST /webhooks/mpesa/b2c/6f1c0d2e/[secret]/result 200",
    );
    // An organisation's own shortcode (issue 76): the callback token in its STK and C2B addresses.
    expect(withoutCallbackSecrets("POST /webhooks/pay/Tok3n_-abc/stk 200 and /webhooks/pay/Tok3n_-abc/c2b/validation")).toBe(
      "POST /webhooks/pay/[secret]/stk 200 and /webhooks/pay/[secret]/c2b/validation",
    );
    expect(withoutCallbackSecrets("https://jumbe.example/webhooks/mpesa/stk/p1/s3cr3t?x=1 and /webhooks/paystack")).toBe(
      "https://jumbe.example/webhooks/mpesa/stk/p1/[secret]?x=1 and /webhooks/paystack",
    );
    expect(withoutCallbackSecrets('{"path":"/webhooks/mpesa/stk/"}')).toBe('{"path":"/webhooks/mpesa/stk/"}');
  });
});
