import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import * as keyApi from "~/routes/api/developer.api-key";
import { startApiV1Server } from "../support/api-v1-server";
import { signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";
import { answersTo, attemptsOf, paymentRequestsHarnessForFile, requestRow, until } from "../support/payment-requests-harness";

// Issue 76 (decision 144): POST /api/v1/payment-requests/{id}/cancel takes a request back as the
// inbox's Cancel request does: the request's view, cancelled; the webhook once; the customer told
// not to pay; a second cancel 409 payment_request_closed; refused while a prompt rings; another
// tenant's id and an unknown one 404; a key without inbox:reply 403.
const h = paymentRequestsHarnessForFile();
const NEVER_ANSWERS = "254711001037";
let api: Awaited<ReturnType<typeof startApiV1Server>>;
beforeAll(async () => {
  api = await startApiV1Server();
});
afterAll(async () => {
  await api.close();
});
type Tenant = Awaited<ReturnType<typeof h.tenant>>;

async function keyOf(t: Tenant) {
  const cookie = await signedInCookie(t.user.email, t.user.password);
  return (await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }))).data.key as string;
}
async function subscribe(t: Tenant) {
  await rawQuery(`insert into webhook_endpoints (organization_id, url, events) values ($1, $2, $3)`, [
    t.organizationId,
    `${h.pay.origin}/sink`,
    ["payment_request.paid", "payment_request.failed", "payment_request.expired", "payment_request.cancelled"],
  ]);
}
const events = async (t: Tenant) =>
  (
    await rawQuery<{ event_type: string }>(`select event_type from webhook_deliveries where organization_id = $1 order by created_at`, [
      t.organizationId,
    ])
  ).map((r) => r.event_type);

describe("POST /api/v1/payment-requests/{id}/cancel", () => {
  it("cancels once: the view, the webhook, the customer told; then 409 payment_request_closed", async () => {
    const t = await h.tenant("Duka la Cancel");
    await subscribe(t);
    const key = await keyOf(t);
    const from = "254722000789";
    const conversationId = await h.customerWrites(t, from);
    const asked = await api.call(key, "POST", "/api/v1/payment-requests", { conversationId, amount: 800, description: "School shoes" });
    expect(asked.status).toBe(201);

    const cancelled = await api.call(key, "POST", `/api/v1/payment-requests/${asked.body.id}/cancel`, undefined, {
      "Idempotency-Key": "c-1",
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: asked.body.id, status: "cancelled", amountKes: 800, paid: null });
    expect(await requestRow(asked.body.id)).toMatchObject({ status: "cancelled" });
    expect(await events(t)).toEqual(["payment_request.cancelled"]);
    await until(
      () => answersTo(t.organizationId, `+${from}`),
      (list) => list.some((a) => a.body === "The request to pay KES 800 for School shoes has been cancelled. Please do not pay it."),
    );

    // The activity log: no member, the API key by its prefix (decision 155), the caller's address, the
    // request's reference and amount; the key's secret nowhere in the row.
    const cancelLines = () =>
      rawQuery<{ user_id: string | null; details: string; ip_address: string | null; user_agent: string | null }>(
        `select user_id, details, ip_address, user_agent from activity_logs where organization_id = $1 and action = 'Payment request cancelled'`,
        [t.organizationId],
      );
    const [prefixRow] = await rawQuery<{ prefix: string }>(
      `select prefix from api_keys where organization_id = $1 and revoked_at is null`,
      [t.organizationId],
    );
    expect(key.startsWith(prefixRow!.prefix)).toBe(true);
    const lines = await cancelLines();
    expect(lines).toEqual([
      {
        user_id: null,
        details: `Request ${asked.body.reference} for KES 800.00 cancelled through the API with the key ${prefixRow!.prefix}...`,
        ip_address: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/),
        user_agent: expect.any(String),
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain(key);
    expect(JSON.stringify(lines)).not.toContain(key.slice(prefixRow!.prefix.length));

    // Again: refused with the catalogue's code, and nothing more goes out or is logged as cancelled.
    const again = await api.call(key, "POST", `/api/v1/payment-requests/${asked.body.id}/cancel`);
    expect([again.status, again.body.code]).toEqual([409, "payment_request_closed"]);
    expect(await cancelLines()).toHaveLength(1);
    expect(again.body.message).toBe("This payment request is no longer open: it was paid, expired or cancelled.");
    expect(await events(t)).toEqual(["payment_request.cancelled"]);
    // The first call's Idempotency-Key again (a client's retry) replays its answer instead.
    const retried = await api.call(key, "POST", `/api/v1/payment-requests/${asked.body.id}/cancel`, undefined, {
      "Idempotency-Key": "c-1",
    });
    expect({ status: retried.status, body: retried.body }).toEqual({ status: 200, body: cancelled.body });
    expect(await events(t)).toEqual(["payment_request.cancelled"]);
    const read = await api.call(key, "GET", `/api/v1/payment-requests/${asked.body.id}`);
    expect(read.body.status).toBe("cancelled");
  });

  it("answers the same to the same Idempotency-Key sent twice at once: one cancel, one activity row at most, one webhook out", async () => {
    const t = await h.tenant("Duka la Mara Mbili");
    await subscribe(t);
    const key = await keyOf(t);
    const from = "254722000790";
    const conversationId = await h.customerWrites(t, from);
    const asked = await api.call(key, "POST", "/api/v1/payment-requests", { conversationId, amount: 650, description: "Uniform" });
    expect(asked.status).toBe(201);
    const activityCount = async () =>
      (await rawQuery<{ n: number }>(`select count(*)::int as n from activity_logs where organization_id = $1`, [t.organizationId]))[0]!.n;
    const before = await activityCount();
    const path = `/api/v1/payment-requests/${asked.body.id}/cancel`;
    const [one, two] = await Promise.all([
      api.call(key, "POST", path, undefined, { "Idempotency-Key": "twice-1" }),
      api.call(key, "POST", path, undefined, { "Idempotency-Key": "twice-1" }),
    ]);
    expect([one.status, two.status]).toEqual([200, 200]);
    expect(two.body).toEqual(one.body);
    expect(one.body).toMatchObject({ id: asked.body.id, status: "cancelled" });
    expect(await events(t)).toEqual(["payment_request.cancelled"]);
    expect((await activityCount()) - before).toBeLessThanOrEqual(1);
    await until(
      () => answersTo(t.organizationId, `+${from}`),
      (list) => list.some((a) => a.body.includes("has been cancelled")),
    );
    const told = (await answersTo(t.organizationId, `+${from}`)).filter((a) => a.body.includes("has been cancelled"));
    expect(told).toHaveLength(1);
  });

  it("is refused while a prompt rings, for another tenant's or an unknown id, and without inbox:reply", async () => {
    const t = await h.tenant("Kibanda API");
    const other = await h.tenant("Jirani API");
    const key = await keyOf(t);
    const otherKey = await keyOf(other);
    const conversationId = await h.customerWrites(t, NEVER_ANSWERS);
    const asked = await api.call(key, "POST", "/api/v1/payment-requests", { conversationId, amount: 1250, description: "Order 42" });
    await h.tap(t, NEVER_ANSWERS, asked.body.id, "pay");
    await until(
      () => attemptsOf(asked.body.id),
      (list) => !!list[0]?.checkout_request_id,
    );
    const ringing = await api.call(key, "POST", `/api/v1/payment-requests/${asked.body.id}/cancel`);
    expect([ringing.status, ringing.body.code]).toEqual([409, "prompt_on_phone"]);

    const foreign = await api.call(otherKey, "POST", `/api/v1/payment-requests/${asked.body.id}/cancel`);
    expect([foreign.status, foreign.body.code]).toEqual([404, "not_found"]);
    expect(foreign.body.message).toBe("No payment request of yours has this id.");
    const unknown = await api.call(key, "POST", "/api/v1/payment-requests/00000000-0000-4000-8000-000000000000/cancel");
    expect([unknown.status, unknown.body.code]).toEqual([404, "not_found"]);
    const malformed = await api.call(key, "POST", "/api/v1/payment-requests/not-a-uuid/cancel");
    expect([malformed.status, malformed.body.code]).toEqual([404, "not_found"]);
    expect((await requestRow(asked.body.id)).status).toBe("open");

    // A key made by a member whose role may not answer customers (a viewer) may not cancel.
    await rawQuery(`update users set org_role = 'viewer' where id = $1`, [t.userId]);
    const viewer = await api.call(key, "POST", `/api/v1/payment-requests/${asked.body.id}/cancel`);
    expect([viewer.status, viewer.body.code]).toEqual([403, "permission_denied"]);
  });
});
