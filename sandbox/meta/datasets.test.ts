import { afterEach, describe, expect, it } from "vitest";
import { startSending, type SendingHarness } from "./test-support";

// The Conversions API for Business Messaging: a WABA's dataset and the events sent to it, refused as
// Meta refuses them (the whole request for one wrong event), each accepted event recorded once.

let h: SendingHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const json = (body: unknown, token: string) => ({
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
  token,
});

async function withDataset() {
  h = await startSending();
  const none = await h.graph(`${h.business.wabaId}/dataset`, { token: h.token });
  expect(none.json).toEqual({ data: [] });
  const made = await h.graph(`${h.business.wabaId}/dataset`, json({ dataset_name: "Jumbe conversions" }, h.token));
  expect(made.status).toBe(200);
  const datasetId = made.json.id as string;
  expect(datasetId).toMatch(/^\d{15,16}$/);
  return datasetId;
}

const now = () => Math.floor(Date.now() / 1000);
const purchase = (waba: string, extra: Record<string, unknown> = {}) => ({
  event_name: "Purchase",
  event_time: now() - 60,
  event_id: "purchase:payment_request:1",
  action_source: "business_messaging",
  messaging_channel: "whatsapp",
  user_data: {
    whatsapp_business_account_id: waba,
    ctwa_clid: "ARAkLkA8rmlFeiCktEJQ-QTwRiyYHAFDLMNDBH0CD3qpjd0HR4irJ6LEkR7JwFF4XvnO2E4Nx0-eM-GABDLOPaOdRMv-_zfUQ2a",
  },
  custom_data: { currency: "KES", value: 1250 },
  ...extra,
});

describe("the Conversions API", () => {
  it("gets the WABA's dataset, or creates one (one a WABA), refusing a missing name and strangers", async () => {
    const datasetId = await withDataset();
    expect((await h!.graph(`${h!.business.wabaId}/dataset`, { token: h!.token })).json).toEqual({
      data: [{ id: datasetId, name: "Jumbe conversions" }],
    });
    expect((await h!.graph(`${h!.business.wabaId}/dataset`, json({ dataset_name: "Again" }, h!.token))).json).toEqual({ id: datasetId });
    const nameless = await h!.graph(`${h!.business.wabaId}/dataset`, json({}, h!.token));
    expect([nameless.status, nameless.json.error?.code]).toEqual([400, 100]);
    const other = h!.sandbox.createTestBusiness({ businessName: "Another" });
    const stranger = await h!.tokenFor(other.businessId, [other.wabaId]);
    expect((await h!.graph(`${h!.business.wabaId}/dataset`, { token: stranger })).json.error?.code).toBe(100);
    expect((await h!.graph(`${datasetId}/events`, json({ data: [purchase(h!.business.wabaId)] }, stranger))).json.error?.code).toBe(100);
  });

  it("records accepted events once per event_id and refuses what Meta refuses, the whole request at a time", async () => {
    const datasetId = await withDataset();
    const waba = h!.business.wabaId;
    const send = (data: unknown[]) => h!.graph(`${datasetId}/events`, json({ data, partner_agent: "jumbe" }, h!.token));
    const accepted = await send([
      purchase(waba),
      { ...purchase(waba), event_name: "LeadSubmitted", event_id: "lead:manual:1", custom_data: undefined },
    ]);
    expect(accepted.status).toBe(200);
    expect(accepted.json).toMatchObject({ events_received: 2, messages: [] });
    // The same event again (a retry in doubt): received, recorded once.
    expect((await send([purchase(waba)])).json.events_received).toBe(1);
    expect(h!.sandbox.conversionEvents().map((e) => [e.eventName, e.value, e.currency])).toEqual([
      ["Purchase", 1250, "KES"],
      ["LeadSubmitted", null, null],
    ]);

    const refused = async (event: Record<string, unknown>) => {
      const answer = await send([purchase(waba, { event_id: "other" }), event]);
      expect(answer.status).toBe(400);
      return answer.json.error!;
    };
    expect(await refused(purchase(waba, { event_name: "Lead" }))).toMatchObject({ code: 100, error_subcode: 2804066 });
    expect((await refused(purchase(waba, { action_source: "website" }))).code).toBe(100);
    expect((await refused(purchase(waba, { messaging_channel: "messenger" }))).code).toBe(100);
    expect((await refused(purchase(waba, { user_data: { whatsapp_business_account_id: waba } }))).code).toBe(100);
    expect((await refused(purchase(waba, { user_data: { ctwa_clid: "x" } }))).code).toBe(100);
    expect((await refused(purchase(waba, { event_time: now() - 8 * 24 * 60 * 60 }))).code).toBe(100);
    expect((await refused(purchase(waba, { event_time: now() + 3600 }))).code).toBe(100);
    expect((await refused(purchase(waba, { event_time: Date.now() + 0.5 }))).code).toBe(100);
    expect((await refused(purchase(waba, { custom_data: { currency: "kes", value: 10 } }))).code).toBe(100);
    expect((await refused(purchase(waba, { custom_data: { currency: "KES", value: "10" } }))).code).toBe(100);
    expect((await refused(purchase(waba, { custom_data: undefined }))).code).toBe(100);
    // Nothing of the refused requests was recorded.
    expect(h!.sandbox.conversionEvents()).toHaveLength(2);

    const unknown = await h!.graph(`123456789012345/events`, json({ data: [purchase(waba)] }, h!.token));
    expect([unknown.status, unknown.json.error?.code]).toEqual([400, 100]);
    const page = await fetch(`${h!.base}/console/conversions`);
    const html = await page.text();
    expect(html).toContain("Purchase");
    expect(html).toContain(purchase(waba).user_data.ctwa_clid);
    expect(html).toContain("1250");
  });
});
