import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SENDER_ID, SHORTCODE, startAfricastalking, USERNAME, type AfricastalkingHarness } from "./test-support";

let h: AfricastalkingHarness;
beforeAll(async () => {
  h = await startAfricastalking();
});
afterAll(async () => {
  await h.close();
});

describe("the phone console (forms without JavaScript)", () => {
  it("lists accounts, sent SMS and their reports", async () => {
    await h.send({ to: "+254712345678", message: "Karibu <b>", from: SENDER_ID });
    await h.sandbox.flush();
    const page = await (await fetch(h.base)).text();
    expect(page).toContain("<h1>Africa's Talking SMS sandbox</h1>");
    expect(page).toContain("KES 99.2000");
    expect(page).toContain("Karibu &lt;b&gt;");
    expect(page).toContain('name="viewport" content="width=device-width');
    expect(page).not.toContain("<script");
  });

  it("sends an SMS to a shortcode from a picked or typed number", async () => {
    const picked = await h.postForm("/sandbox/africastalking/console/incoming", { from: "+254712345678", to: SHORTCODE, text: "Habari" });
    expect(picked.status).toBe(303);
    expect(decodeURIComponent(picked.headers.get("location")!)).toContain("from +254712345678 to 40404 received");
    const typed = await h.postForm("/sandbox/africastalking/console/incoming", {
      from: "+254712345678",
      other: "+254799000111",
      to: SHORTCODE,
      text: "Bei?",
    });
    expect(decodeURIComponent(typed.headers.get("location")!)).toContain("from +254799000111");
    const bad = await h.postForm("/sandbox/africastalking/console/incoming", { from: "+254712345678", to: SHORTCODE, text: " " });
    expect(decodeURIComponent(bad.headers.get("location")!)).toContain("text must be");
    expect(h.sandbox.inbox().map((m) => m.text)).toEqual(["Bei?", "Habari"]);
  });

  it("opts a number out, sets chaos and flushes", async () => {
    const out = await h.postForm("/sandbox/africastalking/console/opt-out", { phoneNumber: "+254733123456", senderId: SENDER_ID });
    expect(out.status).toBe(303);
    expect(h.sandbox.accounts().find((a) => a.username === USERNAME)!.optedOut).toEqual([
      { senderId: SENDER_ID, phoneNumber: "+254733123456" },
    ]);
    await h.postForm("/sandbox/africastalking/console/chaos", { duplicate: "2", reorder: "on" });
    expect((await (await fetch(`${h.base}/control/callbacks`)).json()).callbacks.length).toBeGreaterThan(0);
    const chaos = await fetch(`${h.base}/control/chaos`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ duplicate: 9 }),
    });
    expect(chaos.status).toBe(400);
    expect((await h.postForm("/sandbox/africastalking/console/flush", {})).status).toBe(303);
  });

  it("asks for the token when one is set, on the console and the control API, not on the SMS API", async () => {
    const gated = await startAfricastalking({ controlToken: "sandbox-token-1234567890" });
    try {
      expect((await fetch(gated.base)).status).toBe(401);
      expect((await fetch(`${gated.base}/control/messages`)).status).toBe(401);
      expect((await fetch(`${gated.base}/control/messages`, { headers: { "x-sandbox-token": "sandbox-token-1234567890" } })).status).toBe(
        200,
      );
      expect((await gated.send({ to: "+254712345678", message: "Hi" })).status).toBe(201);
    } finally {
      await gated.close();
    }
  });

  it("control API: accounts, balance, incoming, opt-out, reset", async () => {
    const json = (path: string, method: string, body?: unknown) =>
      fetch(`${h.base}/control${path}`, {
        method,
        headers: { "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const created = await json("/accounts/shop-two", "PUT", {
      apiKey: "atsk_second_account_key",
      senderIds: ["DUKA"],
      shortcodes: ["22333"],
      balanceKes: 5,
    });
    expect(created.status).toBe(200);
    const view = (await created.json()).account;
    expect(view).toMatchObject({ username: "shop-two", balance: "KES 5.0000" });
    expect(JSON.stringify(view)).not.toContain("atsk_second_account_key");
    expect((await json("/accounts/shop-two/balance", "POST", { balanceKes: -1 })).status).toBe(400);
    expect((await json("/accounts/nobody/balance", "POST", { balanceKes: 1 })).status).toBe(404);
    expect((await json("/incoming", "POST", { from: "+254712345678", to: "22333", text: "Hi" })).status).toBe(200);
    expect((await json("/opt-out", "POST", { senderId: "NOPE", phoneNumber: "+254712345678" })).status).toBe(404);
    expect((await json("/reset", "POST")).status).toBe(200);
    expect(h.sandbox.accounts().map((a) => a.username)).toEqual([USERNAME]);
  });
});
