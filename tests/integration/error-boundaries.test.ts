import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORM_MESSAGES } from "~/.server/infrastructure/http/forms";
import { buildExists, DEMO, signInCookie, startBuiltServer, type BuiltServer } from "../support/built-server";
import { rawRequest } from "../support/raw-http";

// Issue 10: an error anywhere showed the full-screen crash screen. Each route group now has an error
// boundary that keeps its layout (the signed-in shell, the sign-in card) and says in words what went
// wrong, with the right status.
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

const post = (path: string, body: string, cookie?: string) =>
  rawRequest(server.base, {
    method: "POST",
    path,
    headers: {
      origin: server.base,
      "content-type": "application/x-www-form-urlencoded",
      accept: "text/html",
      ...(cookie ? { cookie } : {}),
    },
    body,
  });

describe.skipIf(!buildExists())("error boundaries (built server)", () => {
  it("keeps the signed-in shell around a page's error and says what went wrong", async () => {
    const response = await post("/profile", "intent=profile&businessName=Duka%00Letu", demo);
    expect(response.status).toBe(400);
    expect(response.body).toContain('aria-label="Main navigation"');
    expect(response.body).toContain("That request could not be read.");
    expect(response.body).toContain(FORM_MESSAGES.nul);
    expect(response.body).not.toContain("An unexpected error occurred in the application.");
  });

  it("keeps the sign-in card around an auth page's error", async () => {
    const response = await post("/login", "email=a%00b%40example.com&password=x");
    expect(response.status).toBe(400);
    expect(response.body).toContain("That request could not be read.");
    expect(response.body).toContain("Back to sign in");
    expect(response.body).toContain('aria-label="Jumbe home"');
  });
});
