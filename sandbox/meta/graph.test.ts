import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { APP_ID, APP_SECRET, startHarness, type Harness } from "./test-support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function demo(harness: Harness) {
  const state = await harness.state();
  const business = state.businesses.find((b) => b.demo)!;
  const waba = state.wabas.find((w) => w.businessId === business.id)!;
  const phone = state.phoneNumbers.find((p) => p.wabaId === waba.id)!;
  return { businessId: business.id as string, wabaId: waba.id as string, phoneNumberId: phone.id as string };
}

describe("OAuth code exchange", () => {
  it("exchanges a code once, then refuses it as used", async () => {
    h = await startHarness();
    const { businessId, wabaId } = await demo(h);
    const code = h.sandbox.issueCode({ businessId, wabaIds: [wabaId] });
    const first = await h.exchange(code);
    expect(first.status).toBe(200);
    expect(first.json.token_type).toBe("bearer");
    expect(first.json.access_token).toMatch(/^EAA[\w-]{100,}$/);
    expect(first.json).not.toHaveProperty("expires_in");
    const second = await h.exchange(code);
    expect(second.status).toBe(400);
    expect(second.json.error).toMatchObject({ code: 100, error_subcode: 36009, message: "This authorization code has been used." });
    const unknown = await h.exchange("AQnot-a-code");
    expect(unknown.json.error).toMatchObject({ code: 100, error_subcode: 36008 });
  });

  it("expires codes after codeTtlMs on the sandbox clock, and still burns them", async () => {
    let now = 1_750_000_000_000;
    h = await startHarness({ now: () => now });
    const { businessId, wabaId } = await demo(h);
    const code = h.sandbox.issueCode({ businessId, wabaIds: [wabaId] });
    now += 30_001;
    const expired = await h.exchange(code);
    expect(expired.status).toBe(400);
    expect(expired.json.error).toMatchObject({
      code: 100,
      error_subcode: 36007,
      message: "This authorization code has expired.",
      type: "OAuthException",
    });
    expect((await h.exchange(code)).json.error.error_subcode).toBe(36009);
  });

  it("refuses a wrong client secret or client id without burning the code", async () => {
    h = await startHarness();
    const { businessId, wabaId } = await demo(h);
    const code = h.sandbox.issueCode({ businessId, wabaIds: [wabaId] });
    const wrongSecret = await h.graph(`oauth/access_token?client_id=${APP_ID}&client_secret=nope&code=${code}`);
    expect(wrongSecret.status).toBe(400);
    expect(wrongSecret.json.error).toMatchObject({ code: 1, type: "OAuthException", message: "Error validating client secret." });
    const wrongId = await h.graph(`oauth/access_token?client_id=1&client_secret=${APP_SECRET}&code=${code}`);
    expect(wrongId.json.error.code).toBe(1);
    expect((await h.exchange(code)).status).toBe(200);
  });

  it("reports expires_in and expires tokens when tokenTtlSeconds is set", async () => {
    let now = 1_750_000_000_000;
    h = await startHarness({ now: () => now, tokenTtlSeconds: 3600 });
    const { businessId, wabaId } = await demo(h);
    const answer = await h.exchange(h.sandbox.issueCode({ businessId, wabaIds: [wabaId] }));
    expect(answer.json.expires_in).toBe(3600);
    const token = answer.json.access_token;
    const debug = await h.graph(`debug_token?input_token=${token}&access_token=${APP_ID}|${APP_SECRET}`);
    expect(debug.json.data.expires_at).toBe(Math.floor(now / 1000) + 3600);
    now += 3601_000;
    const read = await h.graph(wabaId, { token });
    expect(read.status).toBe(401);
    expect(read.json.error).toMatchObject({ code: 190, error_subcode: 463, type: "OAuthException" });
    const after = await h.graph(`debug_token?input_token=${token}&access_token=${APP_ID}|${APP_SECRET}`);
    expect(after.json.data).toMatchObject({ is_valid: false, error: { code: 190 } });
  });
});

describe("debug_token", () => {
  it("lists the scopes and exactly the granted WABAs", async () => {
    h = await startHarness();
    const { businessId, wabaId } = await demo(h);
    const token = await h.tokenFor(businessId, [wabaId]);
    const answer = await h.graph(`debug_token?input_token=${token}&access_token=${APP_ID}|${APP_SECRET}`);
    expect(answer.status).toBe(200);
    expect(answer.json.data).toMatchObject({
      app_id: APP_ID,
      type: "SYSTEM_USER",
      application: "Jumbe Sandbox",
      is_valid: true,
      expires_at: 0,
      data_access_expires_at: 0,
      scopes: ["whatsapp_business_management", "whatsapp_business_messaging", "business_management"],
      granular_scopes: [
        { scope: "whatsapp_business_management", target_ids: [wabaId] },
        { scope: "whatsapp_business_messaging", target_ids: [wabaId] },
        { scope: "business_management" },
      ],
    });
    expect(answer.json.data.user_id).toMatch(/^\d{15,16}$/);

    const unknown = await h.graph(`debug_token?input_token=EAAnope&access_token=${APP_ID}|${APP_SECRET}`);
    expect(unknown.status).toBe(200);
    expect(unknown.json.data).toMatchObject({ is_valid: false, app_id: APP_ID, error: { code: 190 }, scopes: [] });

    const badApp = await h.graph(`debug_token?input_token=${token}&access_token=${APP_ID}|wrong`);
    expect(badApp.status).toBe(400);
    expect(badApp.json.error.code).toBe(190);
  });
});

describe("WABA endpoints", () => {
  it("round-trips subscribed_apps", async () => {
    h = await startHarness();
    const { businessId, wabaId } = await demo(h);
    const token = await h.tokenFor(businessId, [wabaId]);
    expect((await h.graph(`${wabaId}/subscribed_apps`, { token })).json).toEqual({ data: [] });
    const post = await h.graph(`${wabaId}/subscribed_apps`, {
      token,
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ override_callback_uri: "https://tenant.example/webhooks/whatsapp", verify_token: "vt" }),
    });
    expect(post.json).toEqual({ success: true });
    const listed = await h.graph(`${wabaId}/subscribed_apps`, { token });
    expect(listed.json.data).toHaveLength(1);
    expect(listed.json.data[0]).toMatchObject({
      whatsapp_business_api_data: { id: APP_ID, name: "Jumbe Sandbox" },
      override_callback_uri: "https://tenant.example/webhooks/whatsapp",
    });
    expect((await h.state()).subscriptions).toHaveLength(1);
    expect((await h.graph(`${wabaId}/subscribed_apps`, { token, method: "DELETE" })).json).toEqual({ success: true });
    expect((await h.graph(`${wabaId}/subscribed_apps`, { token })).json).toEqual({ data: [] });
  });

  it("honours fields on the WABA node", async () => {
    h = await startHarness();
    const { businessId, wabaId } = await demo(h);
    const token = await h.tokenFor(businessId, [wabaId]);
    const answer = await h.graph(`${wabaId}?fields=id,name,currency,timezone_id`, { token });
    expect(answer.json).toEqual({ id: wabaId, name: "Jumbe Demo Business", currency: "USD", timezone_id: expect.any(String) });
    const unknownField = await h.graph(`${wabaId}?fields=id,bogus`, { token });
    expect(unknownField.json.error.code).toBe(100);
  });

  it("shows phone number fields before and after registration", async () => {
    h = await startHarness();
    const { businessId, wabaId, phoneNumberId } = await demo(h);
    const token = await h.tokenFor(businessId, [wabaId]);
    const plain = await h.graph(`${wabaId}/phone_numbers`, { token });
    expect(plain.json.data).toEqual([
      {
        id: phoneNumberId,
        display_phone_number: "+254 711 000 001",
        verified_name: "Jumbe Demo",
        quality_rating: "GREEN",
        status: "PENDING",
      },
    ]);
    expect(plain.json.paging.cursors).toEqual({ before: expect.any(String), after: expect.any(String) });

    const fields =
      "id,display_phone_number,status,platform_type,code_verification_status,name_status,throughput,whatsapp_business_manager_messaging_limit";
    const before = await h.graph(`${wabaId}/phone_numbers?fields=${fields}`, { token });
    expect(before.json.data[0]).toMatchObject({
      status: "PENDING",
      platform_type: "NOT_APPLICABLE",
      code_verification_status: "VERIFIED",
      name_status: "APPROVED",
    });
    expect(before.json.data[0]!.whatsapp_business_manager_messaging_limit).toBe("TIER_250");

    const register = await h.graph(`${phoneNumberId}/register`, {
      token,
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ messaging_product: "whatsapp", pin: "581063" }),
    });
    expect(register.json).toEqual({ success: true });
    const after = await h.graph(`${phoneNumberId}?fields=${fields}`, { token });
    expect(after.json).toMatchObject({
      id: phoneNumberId,
      status: "CONNECTED",
      platform_type: "CLOUD_API",
      throughput: { level: "STANDARD" },
    });
  });

  it("enforces the PIN rules and the 10-per-72-hours limit", async () => {
    h = await startHarness();
    const { businessId, wabaId, phoneNumberId } = await demo(h);
    const token = await h.tokenFor(businessId, [wabaId]);
    const register = (body: Record<string, string>) =>
      h!.graph(`${phoneNumberId}/register`, {
        token,
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(body).toString(),
      });

    const badPin = await register({ messaging_product: "whatsapp", pin: "12345" });
    expect(badPin.status).toBe(400);
    expect(badPin.json.error).toMatchObject({ code: 100, message: "(#100) Invalid parameter" });
    expect((await register({ messaging_product: "sms", pin: "123456" })).json.error.code).toBe(100);
    expect((await register({ messaging_product: "whatsapp", pin: "123456" })).json).toEqual({ success: true });
    const mismatch = await register({ messaging_product: "whatsapp", pin: "654321" });
    expect(mismatch.json.error.code).toBe(133005);
    expect(mismatch.json.error.message).toContain("Two step verification PIN Mismatch");
    // 4 calls so far; deregister and register alternately up to 10.
    for (let i = 4; i < 10; i++) {
      const answer =
        i % 2
          ? await register({ messaging_product: "whatsapp", pin: "123456" })
          : await h.graph(`${phoneNumberId}/deregister`, { token, method: "POST" });
      expect(answer.json).toEqual({ success: true });
    }
    const limited = await register({ messaging_product: "whatsapp", pin: "123456" });
    expect(limited.status).toBe(400);
    expect(limited.json.error.code).toBe(133016);
    expect((await register({ messaging_product: "whatsapp", pin: "123456" })).json.error.code).toBe(133016);
  });

  it("answers Graph error envelopes for bad tokens and ids the token does not grant", async () => {
    h = await startHarness();
    const { businessId, wabaId } = await demo(h);
    const token = await h.tokenFor(businessId, [wabaId]);
    const other = h.sandbox.createTestBusiness({ businessName: "Other" });

    const missing = await h.graph(`${wabaId}/phone_numbers`);
    expect(missing.status).toBe(401);
    expect(missing.json.error).toMatchObject({ code: 190, type: "OAuthException" });
    const bad = await h.graph(`${wabaId}/phone_numbers`, { token: "EAAbogus" });
    expect(bad.status).toBe(401);
    expect(bad.json.error).toMatchObject({ code: 190, error_subcode: 467, type: "OAuthException" });
    expect(bad.json.error.fbtrace_id).toBe(bad.headers.get("x-fb-trace-id"));

    for (const id of ["123456789012345", other.wabaId]) {
      const answer = await h.graph(`${id}/phone_numbers`, { token });
      expect(answer.status).toBe(400);
      expect(answer.json.error).toMatchObject({
        code: 100,
        error_subcode: 33,
        type: "GraphMethodException",
        message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      });
      expect(answer.json.error.fbtrace_id).toMatch(/^\S{8,}$/);
    }
    const post = await h.graph(`${other.phoneNumberId}/register`, { token, method: "POST" });
    expect(post.json.error.message).toMatch(/^Unsupported post request\./);
    // The access_token query parameter works as well as the header.
    expect((await h.graph(`${wabaId}?access_token=${token}`)).status).toBe(200);
    const calls = h.sandbox.calls();
    expect(calls.at(-1)).toMatchObject({ method: "GET", status: 200, step: "waba" });
    expect(calls.at(-1)!.path).toContain("access_token=[redacted]");
    expect(JSON.stringify(calls)).not.toContain(token);
  });
});

describe("fault injection", () => {
  it("answers the injected error the given number of times, before any state change", async () => {
    h = await startHarness();
    const { businessId, wabaId, phoneNumberId } = await demo(h);
    const token = await h.tokenFor(businessId, [wabaId]);
    h.sandbox.injectFault({
      step: "phone_numbers",
      error: { status: 500, code: 131000, message: "Something went wrong", isTransient: true },
      times: 2,
    });
    for (let i = 0; i < 2; i++) {
      const answer = await h.graph(`${wabaId}/phone_numbers`, { token });
      expect(answer.status).toBe(500);
      expect(answer.json.error).toMatchObject({ code: 131000, is_transient: true, message: "Something went wrong" });
      expect(answer.json.error.fbtrace_id).toBeTruthy();
    }
    expect((await h.graph(`${wabaId}/phone_numbers`, { token })).status).toBe(200);

    h.sandbox.injectFault({ step: "register", error: { code: 133004 }, times: Infinity });
    const body = JSON.stringify({ messaging_product: "whatsapp", pin: "111111" });
    for (let i = 0; i < 3; i++) {
      const answer = await h.graph(`${phoneNumberId}/register`, {
        token,
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
      });
      expect(answer.json.error.code).toBe(133004);
    }
    expect((await h.state()).phoneNumbers[0]).toMatchObject({ registered: false, hasPin: false, registrationCallsLast72h: 0 });
    h.sandbox.clearFaults();
    expect(
      (await h.graph(`${phoneNumberId}/register`, { token, method: "POST", headers: { "Content-Type": "application/json" }, body })).json,
    ).toEqual({ success: true });
  });

  it("does not consume the code on an oauth fault", async () => {
    h = await startHarness();
    const { businessId, wabaId } = await demo(h);
    const code = h.sandbox.issueCode({ businessId, wabaIds: [wabaId] });
    h.sandbox.injectFault({ step: "oauth", error: { code: 2, message: "Service temporarily unavailable", isTransient: true } });
    const faulted = await h.exchange(code);
    expect(faulted.status).toBe(400);
    expect(faulted.json.error.code).toBe(2);
    expect((await h.exchange(code)).status).toBe(200);
    expect(h.sandbox.calls().map((c) => c.step)).toEqual(["oauth", "oauth"]);
  });

  it("takes faults over the control API", async () => {
    h = await startHarness();
    const post = (body: unknown) =>
      fetch(`${h!.base}/control/faults`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    expect((await post({ step: "nope", error: { code: 1 } })).status).toBe(400);
    expect((await post({ step: "debug_token", error: { code: 4, status: 429 }, times: "Infinity" })).status).toBe(200);
    const answer = await h.graph(`debug_token?input_token=x&access_token=${APP_ID}|${APP_SECRET}`);
    expect(answer.status).toBe(429);
    expect((await fetch(`${h.base}/control/faults`, { method: "DELETE" })).status).toBe(200);
    expect((await h.graph(`debug_token?input_token=x&access_token=${APP_ID}|${APP_SECRET}`)).status).toBe(200);
  });
});

describe("persistence", () => {
  it("keeps businesses, numbers, PINs, subscriptions and tokens across restarts", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "meta-sandbox-"));
    const statePath = path.join(dir, "meta.json");
    try {
      h = await startHarness({ statePath });
      const { businessId, wabaId, phoneNumberId } = await demo(h);
      const extra = h.sandbox.createTestBusiness({ businessName: "Duka la Mama Njeri", displayPhoneNumber: "+254 722 123 456" });
      const token = await h.tokenFor(businessId, [wabaId]);
      await h.graph(`${wabaId}/subscribed_apps`, { token, method: "POST" });
      await h.graph(`${phoneNumberId}/register`, {
        token,
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ messaging_product: "whatsapp", pin: "246810" }),
      });
      await h.close();
      h = undefined;
      const saved = JSON.parse(readFileSync(statePath, "utf8"));
      expect(saved.tokens).toHaveLength(1);

      h = await startHarness({ statePath });
      expect((await demo(h)).wabaId).toBe(wabaId);
      const state = await h.state();
      expect(state.businesses.map((b) => b.name)).toEqual(["Jumbe Demo Business", "Duka la Mama Njeri"]);
      expect(state.subscriptions.map((s) => s.wabaId)).toEqual([wabaId]);
      expect(state.phoneNumbers.find((p) => p.id === extra.phoneNumberId)!.displayPhoneNumber).toBe("+254 722 123 456");
      const node = await h.graph(`${phoneNumberId}?fields=status,platform_type`, { token });
      expect(node.json).toMatchObject({ status: "CONNECTED", platform_type: "CLOUD_API" });
      const mismatch = await h.graph(`${phoneNumberId}/register`, {
        token,
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ messaging_product: "whatsapp", pin: "000000" }),
      });
      expect(mismatch.json.error.code).toBe(133005);

      h.sandbox.reset();
      expect((await h.state()).businesses).toHaveLength(1);
      expect((await demo(h)).wabaId).toBe(wabaId);
      expect((await h.graph(wabaId, { token })).status).toBe(401);
    } finally {
      await h?.close();
      h = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
