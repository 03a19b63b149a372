import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as keyApi from "~/routes/api/developer.api-key";
import { startApiV1Server } from "../support/api-v1-server";
import { signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";
import { paymentRequestsHarnessForFile, requestRow, until } from "../support/payment-requests-harness";

// Issue 76: payment requests in the public API: asked with an Idempotency-Key, read, listed; another
// organisation's id is not found; the shortcode's credentials never appear.
const h = paymentRequestsHarnessForFile();
let api: Awaited<ReturnType<typeof startApiV1Server>>;
beforeAll(async () => {
  api = await startApiV1Server();
});
afterAll(async () => {
  await api.close();
});

async function keyOf(t: Awaited<ReturnType<typeof h.tenant>>) {
  const cookie = await signedInCookie(t.user.email, t.user.password);
  return (await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }))).data.key as string;
}

describe("/api/v1/payment-requests", () => {
  it("asks once per Idempotency-Key, answers its state, and keeps tenants apart", async () => {
    const t = await h.tenant("Duka API");
    const key = await keyOf(t);
    const from = "254711000000";
    const conversationId = await h.customerWrites(t, from);
    const body = { conversationId, amount: 1250, description: "Order 42", reference: "order42" };
    const first = await api.call(key, "POST", "/api/v1/payment-requests", body, { "Idempotency-Key": "pr-1" });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: "open", amountKes: 1250, reference: "ORDER42", source: "api", paid: null });
    const again = await api.call(key, "POST", "/api/v1/payment-requests", body, { "Idempotency-Key": "pr-1" });
    expect(again.body.id).toBe(first.body.id);
    const listed = await api.call(key, "GET", `/api/v1/payment-requests?conversationId=${conversationId}`);
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([first.body.id]);

    const bad = await api.call(key, "POST", "/api/v1/payment-requests", { ...body, amount: 0 }, { "Idempotency-Key": "pr-2" });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_request");
    const foreignShortcode = await api.call(
      key,
      "POST",
      "/api/v1/payment-requests",
      { ...body, shortcodeId: "00000000-0000-4000-8000-000000000000" },
      { "Idempotency-Key": "pr-3" },
    );
    expect([foreignShortcode.status, foreignShortcode.body.code]).toEqual([422, "unknown_shortcode"]);

    await h.tap(t, from, first.body.id, "pay");
    await until(
      () => requestRow(first.body.id),
      (r) => r.status === "paid",
    );
    const paid = await api.call(key, "GET", `/api/v1/payment-requests/${first.body.id}`);
    expect(paid.body).toMatchObject({ status: "paid", paid: { via: "stk", amountKes: 1250 }, amountMismatch: false });
    expect(paid.body.paid.receipt).toMatch(/^[A-Z0-9]{10}$/);
    expect(JSON.stringify(paid.body)).not.toMatch(/harness-consumer|bfb279f9/);

    const other = await h.tenant("Duka Jirani");
    const otherKey = await keyOf(other);
    expect((await api.call(otherKey, "GET", `/api/v1/payment-requests/${first.body.id}`)).status).toBe(404);
    expect((await api.call(otherKey, "GET", `/api/v1/payment-requests/not-a-uuid`)).status).toBe(404);
    expect((await api.call(otherKey, "GET", "/api/v1/payment-requests")).body.data).toEqual([]);
    const foreignConversation = await api.call(otherKey, "POST", "/api/v1/payment-requests", body, { "Idempotency-Key": "pr-4" });
    expect([foreignConversation.status, foreignConversation.body.code]).toEqual([404, "not_found"]);
  });
});
