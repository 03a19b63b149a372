import { describe, expect, it } from "vitest";
import { createRule } from "~/.server/domains/automations/rules";
import { createFlow, getFlow, publishFlow } from "~/.server/domains/automations/flows/store";
import { moveStep, saveStep } from "~/.server/domains/automations/flows/builder";
import { expireRequests } from "~/.server/domains/payments/requests/check";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { askFlowPayment } from "~/.server/domains/automations/flows/payment";
import { personTakesOverDuring } from "../support/person-takes-over";
import { answersTo, paymentRequestsHarnessForFile, requestRow, until } from "../support/payment-requests-harness";

// Issue 76 (decision 139): a chatbot flow's payment step asks for the money in the chat, waits, and
// goes on to its `paid` step when the request is paid, to its `else` step when it expires or is refused.
const h = paymentRequestsHarnessForFile();
type Tenant = Awaited<ReturnType<typeof h.tenant>>;
type StepIn = Parameters<typeof saveStep>[2];

/** A flow: ask the total, ask for it (or `amount`), then a thank-you on paid and a sorry on else. */
async function payingFlow(t: Tenant, amount: string) {
  const flow = await createFlow(t.actor, { name: "Lipa kwa flow" });
  await saveStep(t.actor, flow.id, { type: "question", text: "How much do you want to pay?", input: "text", variable: "total" } as StepIn);
  await saveStep(t.actor, flow.id, {
    type: "payment",
    amount,
    description: "Order for {{contact.name}}",
    reference: "",
    expiresInMinutes: 60,
    paid: "next",
    else: "new:message",
  } as StepIn);
  // [question, payment, end guard, new step]: the guard becomes the thank-you, an end follows it, the new step is the sorry.
  const [, payment, guard, sorry] = (await getFlow(t.organizationId, flow.id)).steps;
  await saveStep(t.actor, flow.id, { id: guard!.id, type: "message", text: "Asante! Receipt {{payment_receipt}}." } as StepIn);
  await saveStep(t.actor, flow.id, { id: sorry!.id, type: "message", text: "Not paid ({{payment_status}}). {{payment_error}}" } as StepIn);
  const { steps } = await saveStep(t.actor, flow.id, { type: "end" } as StepIn);
  await moveStep(t.actor, flow.id, steps.at(-1)!.id, "up");
  expect(payment).toMatchObject({ type: "payment", paid: "next", else: sorry!.id });
  await publishFlow(t.actor, flow.id);
  await createRule(t.actor, { name: "Start paying", matchType: "exact", keywords: ["lipa"], flowId: flow.id });
}

const sessionOf = async (organizationId: string) =>
  (
    await rawQuery<{ status: string; step_id: string; vars: Record<string, unknown> }>(
      `select status, step_id, vars from flow_sessions where organization_id = $1 order by started_at desc limit 1`,
      [organizationId],
    )
  )[0]!;

const flowRequests = (organizationId: string) =>
  rawQuery<{ id: string; amount_kes: number; source: string; source_id: string; description: string }>(
    `select id, amount_kes, source, source_id, description from payment_requests where organization_id = $1 order by created_at`,
    [organizationId],
  );

const jobsWaiting = () =>
  rawQuery<{ queue: string; attempts: number; last_error: string | null; run_at: string }>(
    `select queue, attempts, last_error, run_at::text from jobs order by run_at limit 10`,
  );

const texts = async (t: Tenant, phone: string) =>
  (await answersTo(t.organizationId, `+${phone}`)).filter((a) => a.message_type === "text").map((a) => a.body);

describe("a flow's payment step", () => {
  it("asks for the amount the customer gave, waits, and goes on to its paid step once paid", async () => {
    const t = await h.tenant("Duka la Flow");
    const from = "254711000000"; // the M-Pesa sandbox pays at once
    await payingFlow(t, "{{total}}");
    await h.customerWrites(t, from, "lipa");
    await h.customerWrites(t, from, "1,250");
    const [request] = await until(
      () => flowRequests(t.organizationId),
      (rows) => rows.length === 1,
    );
    const flow = (await rawQuery<{ id: string }>(`select id from flows where organization_id = $1`, [t.organizationId]))[0]!;
    expect(request).toMatchObject({
      amount_kes: 1250,
      source: "flow",
      source_id: flow.id,
      description: expect.stringMatching(/^Order for \S/),
    });
    const waiting = await sessionOf(t.organizationId);
    expect(waiting.status).toBe("active");
    expect(waiting.vars._payment_request).toBe(request!.id);

    // The customer's other words meanwhile do not move the flow on.
    await h.customerWrites(t, from, "nimetuma?");
    expect((await sessionOf(t.organizationId)).step_id).toBe(waiting.step_id);

    await h.tap(t, from, request!.id, "pay");
    // The request and any job still waiting are read too, so a wait that runs out says where it stopped.
    await until(
      async () => ({ session: await sessionOf(t.organizationId), request: await requestRow(request!.id), jobs: await jobsWaiting() }),
      (seen) => seen.session.status === "completed",
    );
    const paid = await requestRow(request!.id);
    expect(paid.status).toBe("paid");
    const said = await texts(t, from);
    expect(said).toContain(`Asante! Receipt ${paid.paid_receipt}.`);
    expect(said.some((text) => text.startsWith("Not paid"))).toBe(false);
    // One request, however the jobs ran.
    expect(await flowRequests(t.organizationId)).toHaveLength(1);
  });

  it("goes on to its else step when the request expires, and once however often the expiry runs", async () => {
    const t = await h.tenant("Duka la Muda");
    const from = "254722700001";
    await payingFlow(t, "500");
    await h.customerWrites(t, from, "lipa");
    await h.customerWrites(t, from, "anything");
    const [request] = await until(
      () => flowRequests(t.organizationId),
      (rows) => rows.length === 1,
    );
    expect(request!.amount_kes).toBe(500);
    await rawQuery(`update payment_requests set expires_at = now() - interval '1 minute' where id = $1`, [request!.id]);
    expect(await expireRequests()).toBe(1);
    expect(await expireRequests()).toBe(0);
    const ended = await until(
      () => sessionOf(t.organizationId),
      (s) => s.status === "completed",
    );
    expect(ended.vars).toMatchObject({ payment_status: "expired" });
    expect(ended.vars._payment_request).toBeUndefined();
    const said = await texts(t, from);
    expect(said.filter((text) => text.startsWith("Not paid (expired)"))).toHaveLength(1);
    expect(said.some((text) => text.startsWith("Asante"))).toBe(false);
  });

  it("goes on to its else step with the reason when the request is refused (an amount that is no number)", async () => {
    const t = await h.tenant("Duka la Kosa");
    const from = "254722700002";
    await payingFlow(t, "{{total}}");
    await h.customerWrites(t, from, "lipa");
    await h.customerWrites(t, from, "elfu moja");
    const ended = await until(
      () => sessionOf(t.organizationId),
      (s) => s.status === "completed",
    );
    expect(ended.vars).toMatchObject({ payment_status: "refused" });
    expect(String(ended.vars.payment_error)).toMatch(/shillings/i);
    expect(await flowRequests(t.organizationId)).toEqual([]);
    expect((await texts(t, from)).filter((text) => text.startsWith("Not paid (refused)"))).toHaveLength(1);
  });

  it("refuses a payment step's bad fields in the builder, at the field", async () => {
    const t = await h.tenant("Duka la Mjenzi");
    const flow = await createFlow(t.actor, { name: "Wrong" });
    const refusal = async (step: Record<string, unknown>) => {
      try {
        await saveStep(t.actor, flow.id, { type: "payment", description: "Order", ...step } as StepIn);
      } catch (error) {
        if (isRefusal(error)) return error.field;
      }
      return null;
    };
    expect(await refusal({ amount: "0" })).toBe("steps[0].amount");
    expect(await refusal({ amount: "1000000" })).toBe("steps[0].amount");
    expect(await refusal({ amount: "" })).toBe("steps[0].amount");
    expect(await refusal({ amount: "100", reference: "not a reference!" })).toBe("steps[0].reference");
    expect(await refusal({ amount: "100", expiresInMinutes: 1 })).toBe("steps[0].expiresInMinutes");
    expect(await refusal({ amount: "100", shortcodeId: "mine" })).toBe("steps[0].shortcodeId");
    expect(await refusal({ amount: "100", description: "x".repeat(101) })).toBe("steps[0].description");
    expect(await refusal({ amount: "{{total}}", reference: "{{order}}" })).toBeNull();
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("a flow's payment step and a person taking over at the same moment", () => {
  it("waits on the conversation's lock in the request's transaction, reads the hold, asks nothing and stops the flow", async () => {
    const t = await h.tenant("Duka la Zamu");
    const from = "254722700003";
    await payingFlow(t, "500");
    const conversationId = await h.customerWrites(t, from, "lipa");
    const asking = await sessionOf(t.organizationId);
    expect(asking.status).toBe("active");
    // The answer's turn has brought the session to the payment step (its job not run yet): as writeTurn leaves it.
    const flow = await getFlow(
      t.organizationId,
      (await rawQuery<{ id: string }>(`select id from flows where organization_id = $1`, [t.organizationId]))[0]!.id,
    );
    const payment = flow.steps.find((step) => step.type === "payment")!;
    const [session] = await rawQuery<{ id: string }>(
      `update flow_sessions set step_id = $2, step_index = $3 where organization_id = $1 and status = 'active' returning id`,
      [t.organizationId, payment.id, flow.steps.indexOf(payment)],
    );
    // Its first read sees nobody holding the conversation (the person has not committed): only the
    // gate in the request's own transaction, after the lock, can see the hold.
    await personTakesOverDuring(conversationId, () =>
      askFlowPayment({
        sessionId: session!.id,
        stepId: payment.id,
        ask: { amount: "500", description: "Order", reference: "", expiresInMinutes: 60, shortcodeId: "" },
      }),
    );
    expect(await flowRequests(t.organizationId)).toEqual([]);
    expect((await sessionOf(t.organizationId)).status).toBe("stopped");
  });
});
