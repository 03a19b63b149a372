import { afterEach, describe, expect, it } from "vitest";
import { APP_ID, startHarness, type Harness } from "./test-support";
import { businessDemoIds, businessDemoTemplateId, businessDemoToken, type DemoConnection } from "./business-demo";

// The demo business connected to Jumbe's demo tenant (demoConnection): what the seed stores, the
// sandbox agrees with, from its first answer and again after the console's reset.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const demo = (now: number): DemoConnection => ({
  businessName: "Nyota Savings Sacco",
  verifiedName: "Nyota Sacco",
  templates: [
    {
      name: "loan_due",
      language: "en",
      category: "UTILITY",
      components: [{ type: "BODY", text: "Habari {{1}}, your repayment is due. Thank you.", example: { body_text: [["Amina"]] } }],
    },
  ],
  customersWrote: [{ waId: "254712345678", wamid: "wamid.DEMO-1", at: now - 3600_000 }],
});

const text = (to: string) => ({ messaging_product: "whatsapp", to, type: "text", text: { body: "Asante, tunashughulikia." } });

describe("the connected demo business", () => {
  it("has its number registered, WABA subscribed, token accepted, templates approved and recent customers' windows open", async () => {
    h = await startHarness({ demoConnection: demo(Date.now()), reengagement: "sync" });
    const ids = businessDemoIds(APP_ID);
    const token = businessDemoToken(APP_ID);
    const check = async () => {
      const state = await h!.state();
      expect(state.phoneNumbers.find((p) => p.id === ids.phoneNumberId)).toMatchObject({
        registered: true,
        verifiedName: "Nyota Sacco",
      });
      expect(state.wabas.find((w) => w.id === ids.wabaId)).toMatchObject({ subscribed: true, name: "Nyota Savings Sacco" });
      expect(h!.sandbox.templates(ids.wabaId)).toMatchObject([
        { id: businessDemoTemplateId(APP_ID, "loan_due", "en"), name: "loan_due", status: "APPROVED" },
      ]);
      const post = (to: string) =>
        h!.graph(`${ids.phoneNumberId}/messages`, {
          method: "POST",
          token,
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(text(to)),
        });
      // The customer who wrote an hour ago gets a free-form reply; one who never wrote does not.
      expect((await post("+254712345678")).status).toBe(200);
      const closed = await post("+254712345999");
      expect(closed.status).toBe(400);
      expect(closed.json.error.code).toBe(131047);
    };
    await check();
    h.sandbox.reset();
    await check();
  });
});
