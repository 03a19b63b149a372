import { describe, expect, it } from "vitest";
import { createPaymentRequest, paymentRequestById } from "~/.server/domains/payments";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { action as threadAction, loader as threadLoader } from "~/routes/app/chat/conversation";
import { signedInCookie } from "../support/accounts";
import { callRoute, formRequest, getRequest, refusalOf } from "../support/http";
import { answersTo, attemptsOf, paymentRequestsHarnessForFile, requestRow, until } from "../support/payment-requests-harness";

// Issue 76: a payment request in the conversation, paid by M-Pesa STK push exactly once.
const h = paymentRequestsHarnessForFile();

describe("a payment request", () => {
  it("is sent as reply buttons, paid by a tap, and answered with the receipt", async () => {
    const t = await h.tenant("Duka la Mama Njeri");
    const from = "254711000000"; // the M-Pesa sandbox pays at once
    const conversationId = await h.customerWrites(t, from);
    const request = await createPaymentRequest(t.actor, conversationId, { amount: 1250, description: "Order 42" }, { source: "inbox" });
    expect(request).toMatchObject({ status: "open", amountKes: 1250, description: "Order 42" });
    expect(request.reference).toMatch(/^JR[A-Z2-9]{6}$/);
    const asked = (await answersTo(t.organizationId, `+${from}`)).at(-1)!;
    expect(asked.message_type).toBe("interactive");
    expect(asked.body).toContain("KES 1,250");
    expect(asked.body).toContain("Paybill 174379");
    expect(asked.body).toContain(request.reference);
    expect(asked.payload.interactive!.action!.buttons!.map((b) => b.reply.title)).toEqual(["Pay with M-Pesa", "Use another number"]);

    await h.tap(t, from, request.id, "pay");
    const paid = await until(
      () => requestRow(request.id),
      (r) => r.status === "paid" && r.paid_receipt !== null,
    );
    expect(paid).toMatchObject({ paid_amount_kes: 1250, amount_mismatch: false, paid_via: "stk" });
    // The sandbox sends its callback twice: still one attempt, one payment, one receipt message.
    await until(
      () => answersTo(t.organizationId, `+${from}`),
      (list) => list.some((a) => a.body.includes(paid.paid_receipt!)),
    );
    const attempts = await attemptsOf(request.id);
    expect(attempts.map((a) => [a.phone, a.state])).toEqual([[from, "paid"]]);
    const receipts = (await answersTo(t.organizationId, `+${from}`)).filter((a) => a.body.startsWith("Payment received"));
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.body).toBe(`Payment received: KES 1,250 for Order 42. M-Pesa receipt ${paid.paid_receipt}. Thank you!`);

    // A tap on a paid request answers with its receipt and pushes nothing.
    await h.tap(t, from, request.id, "pay");
    await until(
      () => answersTo(t.organizationId, `+${from}`),
      (list) => list.at(-1)!.body.startsWith("This is paid already"),
    );
    expect(await attemptsOf(request.id)).toHaveLength(1);
    expect((await paymentRequestById(t.organizationId, request.id))!.paid).toMatchObject({ receipt: paid.paid_receipt, amountKes: 1250 });
  });

  it("pushes once for taps at the same time, and tells the second that the prompt is on the phone", async () => {
    const t = await h.tenant("Kibanda Traders");
    const from = "254711001037"; // never answers: the prompt stays pending
    const conversationId = await h.customerWrites(t, from);
    const request = await createPaymentRequest(t.actor, conversationId, { amount: 300, description: "Delivery" }, { source: "inbox" });
    await h.sentWamid(t, request.id);
    await Promise.all([h.tap(t, from, request.id, "pay"), h.tap(t, from, request.id, "pay"), h.tap(t, from, request.id, "pay")]);
    await until(
      () => answersTo(t.organizationId, `+${from}`),
      (list) => list.filter((a) => a.body.startsWith("The M-Pesa prompt is already on your phone")).length === 2,
    );
    const attempts = await attemptsOf(request.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.state).toBe("pending");
    expect(h.pay.mpesa.prompts().filter((p) => p.phone === from)).toHaveLength(1);
  });

  it("ends each failure in a clear state and words, with a Try again button", async () => {
    const t = await h.tenant("Soko Fresh");
    const cases: [string, string, string][] = [
      ["254711000001", "1", "Your M-Pesa balance was not enough for KES 500."],
      ["254711001032", "1032", "You cancelled the M-Pesa prompt"],
      ["254711002001", "2001", "The M-Pesa PIN was wrong"],
    ];
    for (const [from, code, words] of cases) {
      const conversationId = await h.customerWrites(t, from);
      const request = await createPaymentRequest(t.actor, conversationId, { amount: 500, description: "Sukuma" }, { source: "inbox" });
      await h.tap(t, from, request.id, "pay");
      const [attempt] = await until(
        () => attemptsOf(request.id),
        (list) => list[0]?.state === "failed",
      );
      expect(attempt!.result_code).toBe(code);
      expect((await requestRow(request.id)).status).toBe("open");
      const last = (
        await until(
          () => answersTo(t.organizationId, `+${from}`),
          (list) => list.at(-1)!.body.startsWith(words.slice(0, 20)),
        )
      ).at(-1)!;
      expect(last.body).toContain(words);
      expect(last.payload.interactive!.action!.buttons!.map((b) => [b.reply.id, b.reply.title])).toEqual([
        [`payreq:${request.id}:retry`, "Try again"],
      ]);
      expect((await paymentRequestById(t.organizationId, request.id))!.lastAttempt).toMatchObject({ state: "failed", resultCode: code });
    }
  });

  it("asks for another number and refuses one that is not a Kenyan M-Pesa number", async () => {
    const t = await h.tenant("Mboga Express");
    const from = "254722555001";
    const conversationId = await h.customerWrites(t, from);
    const request = await createPaymentRequest(t.actor, conversationId, { amount: 80, description: "Tea" }, { source: "inbox" });
    await h.tap(t, from, request.id, "other", "Use another number");
    await until(
      () => requestRow(request.id),
      (r) => r.phone_asked_at !== null,
    );
    await h.customerWrites(t, from, "my number is 12345");
    await until(
      () => answersTo(t.organizationId, `+${from}`),
      (list) => list.at(-1)!.body.includes("is not a Kenyan M-Pesa number"),
    );
    expect(await attemptsOf(request.id)).toHaveLength(0);
    await h.customerWrites(t, from, "0711 000 000");
    const paid = await until(
      () => requestRow(request.id),
      (r) => r.status === "paid",
    );
    expect(paid.phone_asked_at).toBeNull();
    expect((await attemptsOf(request.id)).map((a) => a.phone)).toEqual(["254711000000"]);
  });

  it("is refused clearly outside the 24-hour window and for bad input", async () => {
    const t = await h.tenant("Nyumba Rentals");
    const conversationId = await h.customerWrites(t, "254711000000");
    const refusal = async (input: Record<string, unknown>) => {
      try {
        await createPaymentRequest(t.actor, conversationId, input as never, { source: "inbox" });
      } catch (error) {
        if (isRefusal(error, "payment")) return [error.status, error.code, error.field];
        throw error;
      }
      return null;
    };
    expect(await refusal({ amount: 0, description: "x" })).toEqual([422, "invalid_amount", "amount"]);
    expect(await refusal({ amount: 250_001, description: "x" })).toEqual([422, "invalid_amount", "amount"]);
    expect(await refusal({ amount: 10.5, description: "x" })).toEqual([422, "invalid_amount", "amount"]);
    expect(await refusal({ amount: 10, description: "" })).toEqual([422, "invalid_description", "description"]);
    expect(await refusal({ amount: 10, description: "x", reference: "TOO-LONG-REF-1" })).toEqual([422, "invalid_reference", "reference"]);
    expect(await refusal({ amount: 10, description: "x", expiresInMinutes: 4 })).toEqual([422, "invalid_expiry", "expiresInMinutes"]);
    expect(await refusal({ amount: 10, description: "x", shortcodeId: "00000000-0000-4000-8000-000000000000" })).toEqual([
      422,
      "unknown_shortcode",
      "shortcodeId",
    ]);
    // The customer last wrote 25 hours ago: no buttons may be sent, and nothing is stored.
    await rawQuery(`update conversations set last_inbound_at = now() - interval '25 hours' where id = $1`, [conversationId]);
    expect(await refusal({ amount: 10, description: "x" })).toEqual([422, "outside_service_window", "conversationId"]);
    expect(await rawQuery(`select 1 from payment_requests where organization_id = $1`, [t.organizationId])).toEqual([]);
  });

  it("is asked for from the conversation's page, refused at its field, and shown as a card", async () => {
    const t = await h.tenant("Mama Mboga Shop");
    const from = "254711000000";
    const conversationId = await h.customerWrites(t, from);
    const cookie = await signedInCookie(t.user.email, t.user.password);
    const post = (fields: Record<string, string>) =>
      callRoute(threadAction, formRequest(`/chat/${conversationId}`, { intent: "payment", ...fields }, { cookie }), { id: conversationId });
    const bad = await post({ amount: "12.5", description: "Order 42", expiresInMinutes: "1440" });
    expect(bad.status).toBe(422);
    expect(refusalOf(bad).errors.amount).toBe("Enter a whole number of shillings from 1 to 250,000.");
    const badReference = await post({ amount: "1250", description: "Order 42", reference: "ORDER 42", expiresInMinutes: "1440" });
    expect(refusalOf(badReference).errors.reference).toBe("Use 1 to 12 letters or digits, without spaces.");
    const sent = await post({
      amount: "1,250",
      description: "Order 42",
      reference: "Order42",
      expiresInMinutes: "1440",
      shortcodeId: t.shortcode.id,
    });
    expect(sent.status).toBe(302);
    const page = await callRoute(threadLoader, getRequest(`/chat/${conversationId}`, { cookie }), { id: conversationId });
    expect(page.data.shortcodes).toEqual([{ id: t.shortcode.id, label: "Main paybill", isDefault: true }]);
    const card = page.data.paymentRequests[0]!;
    expect(card).toMatchObject({ status: "open", amountKes: 1250, description: "Order 42", reference: "ORDER42" });
    await h.tap(t, from, card.id, "pay");
    await until(
      () => requestRow(card.id),
      (r) => r.status === "paid",
    );
    const after = await callRoute(threadLoader, getRequest(`/chat/${conversationId}`, { cookie }), { id: conversationId });
    expect(after.data.paymentRequests[0]).toMatchObject({ status: "paid", paid: { amountKes: 1250 } });
    expect(JSON.stringify(after.data)).not.toContain("harness-consumer");
  });
});
