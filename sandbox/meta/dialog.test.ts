import { afterEach, describe, expect, it } from "vitest";
import { APP_ID, startHarness, type Harness } from "./test-support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const REDIRECT = "https://app.example/onboarding/whatsapp/callback?tenant=duka";

function dialogQuery(extra: Record<string, string> = {}) {
  return new URLSearchParams({
    client_id: APP_ID,
    config_id: "cfg-1",
    redirect_uri: REDIRECT,
    state: "st-123",
    response_type: "code",
    ...extra,
  });
}

async function submit(harness: Harness, fields: Record<string, string>) {
  return fetch(`${harness.base}/dialog/oauth`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}

describe("Embedded Signup dialog", () => {
  it("renders an accessible form offering a new business by default, and refuses bad parameters", async () => {
    h = await startHarness({ configId: "cfg-1" });
    const page = await fetch(`${h.base}/dialog/oauth?${dialogQuery()}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<form method="post" action="/sandbox/meta/dialog/oauth">');
    expect(html).toContain(
      '<input type="radio" name="asset" id="asset-new" value="new" checked><label for="asset-new">Create a new test business</label>',
    );
    // Without a signing-up user: the test businesses nobody made in the dialog (here the demo's), not chosen.
    expect(html).toMatch(
      /<input type="radio" name="asset" id="asset-0" value="phone:\d+"><label for="asset-0">Jumbe Demo Business — [^<]*\+254 711 000 001 \(Jumbe Demo\)<\/label>/,
    );
    expect(html).toContain(`name="redirect_uri" value="${REDIRECT.replace(/&/g, "&amp;")}"`);
    expect(html).toContain('<style nonce="test-nonce">');
    expect(html).not.toMatch(/<script(?![^>]*nonce="test-nonce")/);

    for (const [extra, text] of [
      [{ client_id: "1" }, "Invalid App ID"],
      [{ config_id: "other" }, "Unknown configuration"],
      [{ redirect_uri: "/relative" }, "redirect_uri must be an absolute http or https URL"],
      [{ redirect_uri: "javascript:alert(1)" }, "redirect_uri must be an absolute http or https URL"],
    ] as const) {
      const bad = await fetch(`${h.base}/dialog/oauth?${dialogQuery(extra)}`);
      expect(bad.status).toBe(400);
      expect(await bad.text()).toContain(text);
    }
  });

  it("display=page: Finish redirects with code, shared_waba_id, phone_number_id and state, and sends PARTNER_ADDED", async () => {
    h = await startHarness();
    const state = await h.state();
    const phone = state.phoneNumbers[0]!;
    const waba = state.wabas[0]!;
    const answer = await submit(h, { ...Object.fromEntries(dialogQuery()), asset: `phone:${phone.id}`, action: "finish" });
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe("https://app.example/onboarding/whatsapp/callback");
    expect(location.searchParams.get("tenant")).toBe("duka");
    expect(location.searchParams.get("shared_waba_id")).toBe(waba.id);
    expect(location.searchParams.get("phone_number_id")).toBe(phone.id);
    expect(location.searchParams.get("state")).toBe("st-123");
    const exchanged = await h.exchange(location.searchParams.get("code")!);
    expect(exchanged.status).toBe(200);

    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(1);
    const body = JSON.parse(h.receiver.received[0]!.body);
    expect(body.entry[0].id).toBe(state.partnerBusinessId);
    expect(body.entry[0].id).not.toBe(waba.id);
    expect(body.entry[0].time).toEqual(expect.any(Number));
    expect(body.entry[0].changes[0]).toEqual({
      field: "account_update",
      value: { event: "PARTNER_ADDED", waba_info: { waba_id: waba.id, owner_business_id: waba.businessId } },
    });
  });

  it("display=page: Cancel redirects with access_denied and the state", async () => {
    h = await startHarness();
    const answer = await submit(h, { ...Object.fromEntries(dialogQuery()), action: "cancel" });
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("error_reason")).toBe("user_denied");
    expect(location.searchParams.get("state")).toBe("st-123");
    expect(location.searchParams.get("tenant")).toBe("duka");
    expect(location.searchParams.has("code")).toBe(false);
  });

  it("creates a new test business on Finish, and shows form errors", async () => {
    h = await startHarness();
    const taken = await submit(h, {
      ...Object.fromEntries(dialogQuery()),
      asset: "new",
      business_name: "Duka",
      phone_number: "+254 711 000 001",
      action: "finish",
    });
    expect(taken.status).toBe(422);
    expect(await taken.text()).toContain("already belongs to a test business");

    const answer = await submit(h, {
      ...Object.fromEntries(dialogQuery()),
      asset: "new",
      business_name: "Duka la Mama Njeri",
      verified_name: "Mama Njeri",
      phone_number: "0722 000 111".replace(/^0/, "254"),
      action: "finish",
    });
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get("location")!);
    const state = await h.state();
    const phone = state.phoneNumbers.find((p) => p.id === location.searchParams.get("phone_number_id"))!;
    expect(phone).toMatchObject({ displayPhoneNumber: "+254 722 000 111", verifiedName: "Mama Njeri" });
    expect(state.wabas.find((w) => w.id === location.searchParams.get("shared_waba_id"))!.name).toBe("Duka la Mama Njeri");
  });

  it("display=popup: Finish posts the session info and the code to the opener, with a Continue link", async () => {
    h = await startHarness();
    const state = await h.state();
    const phone = state.phoneNumbers[0]!;
    const answer = await submit(h, {
      ...Object.fromEntries(dialogQuery({ display: "popup" })),
      asset: `phone:${phone.id}`,
      action: "finish",
    });
    expect(answer.status).toBe(200);
    const html = await answer.text();
    const script = /<script nonce="test-nonce">([\s\S]*?)<\/script>/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(script).toContain('var origin="https://app.example"');
    const messages = JSON.parse(/var messages=(\[[\s\S]*?\]);/.exec(script!)![1]!);
    expect(messages[0]).toEqual({
      type: "WA_EMBEDDED_SIGNUP",
      event: "FINISH",
      data: { phone_number_id: phone.id, waba_id: phone.wabaId, business_id: state.wabas[0]!.businessId },
    });
    expect(messages[1]).toMatchObject({
      type: "JUMBE_SANDBOX_AUTH_RESPONSE",
      authResponse: { code: expect.stringMatching(/^AQ/) },
      status: "connected",
    });
    expect(script).toContain("opener.postMessage(JSON.stringify(messages[i]),origin)");
    expect(script).toContain("window.close()");
    const href = /<a class="button" id="continue" href="([^"]+)">Continue<\/a>/.exec(html)![1]!.replace(/&amp;/g, "&");
    expect(new URL(href).searchParams.get("code")).toBe(messages[1].authResponse.code);
  });

  it("display=popup: Cancel posts CANCEL and a null authResponse", async () => {
    h = await startHarness();
    const answer = await submit(h, { ...Object.fromEntries(dialogQuery({ display: "popup" })), action: "cancel" });
    const html = await answer.text();
    const messages = JSON.parse(/var messages=(\[[\s\S]*?\]);/.exec(html)![1]!);
    expect(messages).toEqual([
      { type: "WA_EMBEDDED_SIGNUP", event: "CANCEL", data: { current_step: "PHONE_NUMBER_SETUP" } },
      { type: "JUMBE_SANDBOX_AUTH_RESPONSE", authResponse: null, status: "unknown" },
    ]);
    expect(html).toContain("error=access_denied");
  });

  it("offers each signing-up business a fresh number of its own, and never another tenant's businesses", async () => {
    h = await startHarness();
    const extras = JSON.stringify({ setup: { business: { name: "Baraka Hardware Kisii" } } });
    const asDuka = dialogQuery({ sandbox_user: "tenant-duka", extras });
    const first = await (await fetch(`${h.base}/dialog/oauth?${asDuka}`)).text();
    // A new business, named as the app prefilled it; no one else's numbers, not even the shared demo number.
    expect(first).toContain('value="new" checked');
    expect(first).toContain(
      'id="business_name" name="business_name" maxlength="100" autocomplete="organization" value="Baraka Hardware Kisii"',
    );
    expect(first).not.toContain("Jumbe Demo");
    expect(first).not.toContain("+254 711 000 001");
    expect(first).toContain('<input type="hidden" name="sandbox_user" value="tenant-duka">');

    // Finish with the prefilled name and no number: a new business, WABA and Kenyan number for this signup.
    const finished = await submit(h, {
      ...Object.fromEntries(asDuka),
      asset: "new",
      business_name: "Baraka Hardware Kisii",
      action: "finish",
    });
    expect(finished.status).toBe(303);
    const location = new URL(finished.headers.get("location")!);
    const state = await h.state();
    const demoPhone = state.phoneNumbers.find((p) => p.displayPhoneNumber === "+254 711 000 001")!;
    expect(location.searchParams.get("phone_number_id")).not.toBe(demoPhone.id);
    const duka = state.phoneNumbers.find((p) => p.id === location.searchParams.get("phone_number_id"))!;
    expect(duka).toMatchObject({ verifiedName: "Baraka Hardware Kisii", displayPhoneNumber: expect.stringMatching(/^\+254 7/) });

    // The same user sees it again as a choice (a new business still the default); another tenant never does.
    const again = await (await fetch(`${h.base}/dialog/oauth?${asDuka}`)).text();
    expect(again).toContain(duka.displayPhoneNumber);
    expect(again).toContain('value="new" checked');
    const asOther = dialogQuery({ sandbox_user: "tenant-kiosk" });
    const other = await (await fetch(`${h.base}/dialog/oauth?${asOther}`)).text();
    expect(other).not.toContain("Baraka Hardware Kisii");
    expect(other).not.toContain(duka.displayPhoneNumber);
    // Nor can it take the number by posting its id.
    const stolen = await submit(h, { ...Object.fromEntries(asOther), asset: `phone:${duka.id}`, action: "finish" });
    expect(stolen.status).toBe(422);
    expect(await stolen.text()).toContain("Choose a phone number, or create a new test business.");
    // Without a user (a bare link), nobody's dialog businesses are listed either.
    expect(await (await fetch(`${h.base}/dialog/oauth?${dialogQuery()}`)).text()).not.toContain("Baraka Hardware Kisii");
  });

  it("never offers the demo number once it is connected to the demo tenant (demoConnection)", async () => {
    h = await startHarness({
      demoConnection: { businessName: "Nyota Savings Sacco", verifiedName: "Nyota Sacco", templates: [] },
    });
    const html = await (await fetch(`${h.base}/dialog/oauth?${dialogQuery()}`)).text();
    expect(html).not.toContain("+254 711 000 001");
    expect(html).not.toContain("Nyota");
    const state = await h.state();
    const demo = state.phoneNumbers.find((p) => p.displayPhoneNumber === "+254 711 000 001")!;
    expect(demo).toMatchObject({ registered: true, verifiedName: "Nyota Sacco" });
    const refused = await submit(h, { ...Object.fromEntries(dialogQuery()), asset: `phone:${demo.id}`, action: "finish" });
    expect(refused.status).toBe(422);
  });
});
