import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, DEMO, buildExists, signInCookie, startBuiltServer, type BuiltServer } from "../support/built-server";
import { rawRequest, residentBytes, streamLargeBody } from "../support/raw-http";

// Issue 9: bad input gets a clear 4xx, never a 500, and bodies are bounded. These run against the
// built server (Express in front of React Router), so they run wherever build/ exists.
let server: BuiltServer;
let demo = "";

beforeAll(async () => {
  if (!buildExists()) return;
  server = await startBuiltServer();
  demo = await signInCookie(server, DEMO);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const origin = () => ({ origin: server.base });
const formHeaders = (extra: Record<string, string> = {}) => ({
  ...origin(),
  "content-type": "application/x-www-form-urlencoded",
  ...extra,
});
const jsonHeaders = (extra: Record<string, string> = {}) => ({ ...origin(), "content-type": "application/json", ...extra });
const post = (path: string, headers: Record<string, string>, body: string) =>
  rawRequest(server.base, { method: "POST", path, headers, body });
const get = (path: string, headers: Record<string, string> = {}) => rawRequest(server.base, { method: "GET", path, headers });
const json = (body: string) => JSON.parse(body) as { message?: string };

describe.skipIf(!buildExists())("bad input never answers 500 (built server)", () => {
  it("refuses a declared body over the route's limit with 413 before reading it", async () => {
    const signin = await streamLargeBody(server.base, {
      path: "/api/auth/signin",
      headers: jsonHeaders(),
      total: 64 * 1024 * 1024,
      declareLength: true,
    });
    expect(signin.status).toBe(413);
    expect(json(signin.body)).toEqual({ message: "Request body too large." });
    expect(signin.written).toBeLessThan(64 * 1024 * 1024);

    const login = await streamLargeBody(server.base, { path: "/login", headers: formHeaders(), total: 17 * 1024, declareLength: true });
    expect(login.status).toBe(413);
    expect(login.headers["content-type"]).toMatch(/text\/html/);
    expect(login.body).toContain("Request body too large.");

    // The public API keeps its own problem document (a code of its catalogue) when Express answers for it.
    const api = await streamLargeBody(server.base, {
      path: "/api/v1/templates",
      headers: { "content-type": "application/json", authorization: "Bearer jmb_not_checked_before_the_body" },
      total: 1024 * 1024,
      declareLength: true,
    });
    expect(api.status).toBe(413);
    expect(api.headers["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(api.body)).toMatchObject({
      status: 413,
      code: "payload_too_large",
      message: "The request body is over 64 KB.",
      requestId: api.headers["x-request-id"],
    });

    // 64 KB for the other forms: a 60 KB profile post is read (and refused for what it says), 65 KB is not.
    const profile = (size: number) => post("/profile", formHeaders({ cookie: demo }), form({ intent: "nothing", pad: "x".repeat(size) }));
    expect((await profile(60 * 1024)).status).toBe(400);
    expect((await profile(65 * 1024)).status).toBe(413);
  });

  it("counts a chunked body while it streams: 413 past the limit, and the server does not hold it", async () => {
    const before = await residentBytes(server.child.pid!);
    const big = await streamLargeBody(server.base, {
      path: "/api/auth/signin",
      headers: jsonHeaders(),
      total: 128 * 1024 * 1024,
      declareLength: false,
    });
    expect(big.status).toBe(413);
    expect(json(big.body)).toEqual({ message: "Request body too large." });
    const page = await streamLargeBody(server.base, {
      path: "/profile",
      headers: formHeaders({ cookie: demo }),
      total: 8 * 1024 * 1024,
      declareLength: false,
      fill: "b",
    });
    expect(page.status).toBe(413);
    // Without the limit the 128 MB body was buffered (and copied into a string) in the server.
    expect((await residentBytes(server.child.pid!)) - before).toBeLessThan(48 * 1024 * 1024);
    // A small chunked body still goes through.
    const small = await streamLargeBody(server.base, {
      path: "/api/auth/signin",
      headers: jsonHeaders(),
      total: 10,
      declareLength: false,
      fill: " ",
    });
    expect(small.status).toBe(400);
    expect(json(small.body).message).toBeTruthy();
    expect((await get("/healthz")).status).toBe(200);
  });

  it("page forms refuse other content types with 415 and unreadable forms with 400", async () => {
    for (const type of ["text/plain", "application/json", "application/xml", "multipart/form-data", "garbage;;="]) {
      const response = await post("/login", { ...origin(), "content-type": type }, "email=a@b.co&password=123456");
      expect(response.status, type).toBe(415);
      expect(response.body).toContain("Forms must be sent as application/x-www-form-urlencoded or multipart/form-data.");
    }
    expect((await post("/login", origin(), "email=a@b.co")).status).toBe(415);
    const broken = await post(
      "/signup",
      { ...origin(), "content-type": "multipart/form-data; boundary=XYZ" },
      '--XYZ\r\nContent-Disposition: form-data; name="email"\r\n\r\nno end',
    );
    expect(broken.status).toBe(400);
    expect(broken.body).toContain("The form could not be read. Please try again.");
    // React Router's own submissions with JavaScript (fetch to /path.data, form-encoded) still work.
    const data = await post("/login.data", formHeaders(), form({ email: "nobody@jumbe.demo", password: "wrong-password" }));
    expect(data.status).toBeGreaterThanOrEqual(200);
    expect(data.status).toBeLessThan(500);
    expect(data.status).not.toBe(415);
  });

  it("runs an action only for POST: other methods answer 405 with Allow", async () => {
    const cookie = await signInCookie(server, DEMO);
    for (const method of ["PUT", "PATCH", "DELETE", "PROPFIND", "TRACE"]) {
      const response = await rawRequest(server.base, { method, path: "/logout", headers: { ...formHeaders(), cookie }, body: "" });
      expect(response.status, method).toBe(405);
      expect(response.headers.allow).toBe("GET, HEAD, POST, OPTIONS");
      expect(response.body).not.toMatch(/ at |\/work\/|node_modules/);
    }
    const api = await rawRequest(server.base, {
      method: "DELETE",
      path: "/api/auth/logout",
      headers: { ...jsonHeaders(), cookie },
      body: "{}",
    });
    expect(api.status).toBe(405);
    expect(json(api.body)).toEqual({ message: "Method not allowed." });
    // Still signed in: none of them signed out.
    expect((await get("/api/auth/me", { cookie })).status).toBe(200);
    // A page without an action takes no POST; the public API answers in its own format.
    for (const path of ["/dashboard", "/dashboard.data", "/terms", "/x/..", "//"]) {
      const response = await post(path, formHeaders({ cookie }), "a=1");
      expect(response.status, path).toBe(405);
      expect(response.headers.allow, path).toBe("GET, HEAD, OPTIONS");
    }
    const v1 = await rawRequest(server.base, { method: "PROPFIND", path: "/api/v1/account" });
    expect(v1.status).toBe(405);
    expect(v1.headers["content-type"]).toBe("application/problem+json");
    expect(json(v1.body)).toMatchObject({ status: 405, code: "method_not_allowed", message: "Method not allowed." });
    const options = await rawRequest(server.base, { method: "OPTIONS", path: "/login" });
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe("GET, HEAD, POST, OPTIONS");
  });

  it("treats an unreadable cookie as absent", async () => {
    for (const value of ["%", "%ZZ", "x%2", "%00"]) {
      const cookie = `jumbe_session=${value}; otp_email=${value}; reset_email=${value}; jumbe_toast=${value}; jumbe_sidebar=${value}`;
      expect((await get("/api/auth/me", { cookie })).status, value).toBe(401);
      expect((await get("/dashboard", { cookie })).status, value).toBe(302);
      expect((await get("/verify-otp", { cookie })).status, value).toBeLessThan(500);
      expect((await get("/login", { cookie })).status, value).toBe(200);
      const login = await post("/login", formHeaders({ cookie }), form({ email: "nobody@jumbe.demo", password: "wrong-password" }));
      expect(login.status, value).toBeGreaterThanOrEqual(400);
      expect(login.status, value).toBeLessThan(500);
    }
  });

  it("refuses NUL in an e-mail with the spec's text, and NUL in any field before it reaches the database", async () => {
    const nul = "demo\u0000@jumbe.demo";
    for (const [path, body] of [
      ["/api/auth/signin", { email: nul, password: DEMO.password }],
      ["/api/auth/signup", { firstName: "A", lastName: "B", email: nul, password: "Karibu#2026" }],
      ["/api/auth/verify-otp", { email: nul, otp: "123456" }],
      ["/api/auth/resend-otp", { email: nul }],
    ] as const) {
      const response = await post(path, jsonHeaders(), JSON.stringify(body));
      expect(response.status, path).toBe(400);
      expect(json(response.body), path).toEqual({ message: "Email is invalid" });
    }
    const name = await post(
      "/api/auth/signup",
      jsonHeaders(),
      JSON.stringify({ firstName: "A\u0000", lastName: "B", email: "nul@example.co.ke", password: "Karibu#2026" }),
    );
    expect(name.status).toBe(400);
    expect(json(name.body)).toEqual({ message: "Text fields must not contain NUL characters." });
    for (const [path, fields] of [
      ["/login", { email: nul, password: DEMO.password }],
      [
        "/signup",
        { firstName: "A", lastName: "B", email: nul, password: "Karibu#2026", confirmPassword: "Karibu#2026", agreedToTerms: "on" },
      ],
      ["/verify-otp", { email: nul, otp: "123456" }],
      ["/verify-otp", { email: nul, intent: "resend" }],
      ["/forgot-password", { email: nul }],
      ["/profile", { intent: "save", businessName: "Duka\u0000", email: DEMO.email }],
      ["/developers", { intent: "webhook", url: "https://example.co.ke/\u0000" }],
    ] as const) {
      const response = await post(path, formHeaders({ cookie: demo }), form(fields));
      expect(response.status, path).toBe(400);
      expect(response.body, path).toContain("Form fields must not contain NUL characters.");
    }
  });

  it("answers odd activity filters with 400 and a message", async () => {
    const cases: Array<[string, string]> = [
      ["range=constructor", 'Unknown date range "constructor".'],
      ["range=__proto__", 'Unknown date range "__proto__".'],
      ["range=toString", 'Unknown date range "toString".'],
      ["range=hasOwnProperty", 'Unknown date range "hasOwnProperty".'],
      ["startDate=0000-01-01", "startDate must be between 2000-01-01 and 2100-12-31."],
      ["endDate=9999-12-31", "endDate must be between 2000-01-01 and 2100-12-31."],
    ];
    for (const [query, message] of cases) {
      for (const path of ["/api/activity-logs", "/api/activity-logs/export"]) {
        const response = await get(`${path}?${query}`, { cookie: demo });
        expect(response.status, `${path}?${query}`).toBe(400);
        expect(json(response.body), `${path}?${query}`).toEqual({ message });
      }
      const page = await get(`/activity?${query}`, { cookie: demo });
      expect(page.status, query).toBe(200);
      expect(page.body).toContain(message.replaceAll('"', "&quot;"));
    }
  });

  it("refuses a Host or forwarded host that makes no URL with 400", async () => {
    const odd: Array<Record<string, string>> = [
      { "x-forwarded-host": "%%%" },
      { "x-forwarded-host": "a b" },
      { "x-forwarded-host": "x:99999" },
      { "x-forwarded-proto": "javascript" },
    ];
    for (const headers of odd) {
      const response = await get("/login", headers);
      expect(response.status, JSON.stringify(headers)).toBe(400);
      expect(response.body).toContain("Bad request: the X-Forwarded-");
    }
    expect((await get("/login", { "x-forwarded-host": "app.jumbe.co.ke", "x-forwarded-proto": "https" })).status).toBe(200);
  });

  it("shows the product's own error page, never a stack trace, in development mode", async () => {
    const admin = await signInCookie(server, ADMIN);
    for (const path of ["/%E0%A4%A", "/login/%ZZ", "/api/%ZZ"]) {
      const response = await get(path, { cookie: admin });
      expect(response.status, path).toBe(400);
      expect(response.body, path).not.toMatch(/ at |\/work\/|node_modules|\.js:\d+/);
    }
    expect((await get("/api/%ZZ")).headers["content-type"]).toMatch(/application\/json/);
    expect((await get("/%E0%A4%A")).body).toContain("Go to Jumbe");
  });
});
