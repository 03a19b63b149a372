import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { englishOf, words } from "../../../infrastructure/words/said";
import type { C2bUnmatchedReason } from "../../../infrastructure/db/schema";
import { recordActivity } from "../../activity";
import { can } from "../../auth";
import type { PaymentsActor } from "../shortcodes";
import type { MpesaShortcode } from "../shortcodes-access";
import { refusePaymentRequest } from "./input";
import { PAYMENTS_REFUSALS, refusePayments } from "../refusals";
import { lockRequest } from "./lock";
import { markPaid } from "./settle";
import { m } from "~/paraglide/messages";

/** A C2B confirmation as Jumbe keeps it: money in the tenant's paybill or till. */
export interface C2bPaid {
  transId: string;
  amountCents: number;
  msisdn: string;
  firstName: string;
  billRefNumber: string;
  transTime: Date;
}

/** A payment that settled no request by itself, as Settings → Payments lists it. */
export interface UnmatchedReceipt {
  id: string;
  shortcodeLabel: string;
  receipt: string;
  amountKes: number;
  from: string;
  billRef: string;
  paidAt: string;
  reason: C2bUnmatchedReason;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How many the page lists (the newest); the rest wait their turn. */
export const UNMATCHED_SHOWN = 50;

/**
 * Keeps one C2B confirmation, once per TransID and shortcode (Daraja repeats them): with the request
 * it settled, or why it settled none. Answers false when it was already kept.
 */
export async function keepC2bReceipt(
  tx: Executor,
  shortcode: Pick<MpesaShortcode, "id" | "organizationId">,
  paid: C2bPaid,
  outcome: { requestId: string } | { reason: C2bUnmatchedReason },
): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(
    tx,
    sql`
    insert into payment_c2b_receipts (organization_id, shortcode_id, trans_id, amount_kes, msisdn, payer_name, bill_ref, paid_at,
                                      request_id, unmatched_reason)
    values (${shortcode.organizationId}, ${shortcode.id}, ${paid.transId}, ${Math.round(paid.amountCents / 100)},
            ${paid.msisdn.slice(0, 40)}, ${paid.firstName.slice(0, 100)}, ${paid.billRefNumber.slice(0, 40)},
            ${paid.transTime.toISOString()}::timestamptz, ${"requestId" in outcome ? outcome.requestId : null},
            ${"reason" in outcome ? outcome.reason : null})
    on conflict (shortcode_id, trans_id) do nothing
    returning id`,
  );
  return rows.length > 0;
}

/** The organisation's payments that settled no request, newest first. */
export async function unmatchedReceipts(organizationId: string): Promise<UnmatchedReceipt[]> {
  const rows = await queryRows<{
    id: string;
    label: string;
    trans_id: string;
    amount_kes: number;
    msisdn: string;
    payer_name: string;
    bill_ref: string;
    paid_at: Date | string;
    unmatched_reason: C2bUnmatchedReason;
  }>(
    db(),
    sql`
    select r.id, s.label, r.trans_id, r.amount_kes, r.msisdn, r.payer_name, r.bill_ref, r.paid_at, r.unmatched_reason
    from payment_c2b_receipts r join mpesa_shortcodes s on s.id = r.shortcode_id
    where r.organization_id = ${organizationId} and r.request_id is null
    order by r.created_at desc limit ${UNMATCHED_SHOWN}`,
  );
  return rows.map((r) => ({
    id: r.id,
    shortcodeLabel: r.label,
    receipt: r.trans_id,
    amountKes: Number(r.amount_kes),
    from: [r.payer_name, r.msisdn].filter(Boolean).join(" · "),
    billRef: r.bill_ref,
    paidAt: new Date(r.paid_at).toISOString(),
    reason: r.unmatched_reason,
  }));
}

/**
 * A manager matches a payment that settled nothing to the request it was for (by the request's
 * reference, on the same shortcode): the request is paid by it under both rows' locks, once. A
 * request already paid is refused (the money is then the team's to return or keep: M-Pesa's
 * reversal is theirs to ask). Paid after it expired or was cancelled, the request is paid: money
 * that arrived is never thrown away.
 */
export async function matchReceipt(actor: PaymentsActor, receiptId: string, reference: string, meta?: RequestMeta) {
  if (!can(actor.role, "payments:manage")) throw refusePayments(403, "forbidden", PAYMENTS_REFUSALS.forbidden);
  if (!UUID.test(receiptId)) throw refusePaymentRequest(404, "not_found", m.payreq_receipt_not_found());
  const wanted = reference.trim().toUpperCase();
  return db().transaction(async (tx) => {
    const [receipt] = await queryRows<{
      id: string;
      shortcode_id: string;
      trans_id: string;
      amount_kes: number;
      msisdn: string;
      paid_at: Date | string;
      request_id: string | null;
    }>(
      tx,
      sql`select id, shortcode_id, trans_id, amount_kes, msisdn, paid_at, request_id from payment_c2b_receipts
          where id = ${receiptId} and organization_id = ${actor.organization.id} for update`,
    );
    if (!receipt) throw refusePaymentRequest(404, "not_found", m.payreq_receipt_not_found());
    if (receipt.request_id) throw refusePaymentRequest(409, "already_matched", m.payreq_receipt_already_matched());
    const [found] = await queryRows<{ id: string }>(
      tx,
      sql`select id from payment_requests where organization_id = ${actor.organization.id} and shortcode_id = ${receipt.shortcode_id}
          and upper(reference) = ${wanted} order by (status = 'open') desc, created_at desc limit 1`,
    );
    if (!wanted || !found) throw refusePaymentRequest(422, "no_such_request", m.payreq_receipt_no_request(), "reference");
    const request = (await lockRequest(tx, found.id, actor.organization.id))!;
    if (request.status === "paid") throw refusePaymentRequest(409, "request_paid", m.payreq_receipt_request_paid(), "reference");
    await markPaid(tx, request, {
      via: "c2b",
      receipt: receipt.trans_id,
      amountKes: Number(receipt.amount_kes),
      phone: receipt.msisdn || null,
      at: new Date(receipt.paid_at),
    });
    await tx.execute(sql`
      update payment_c2b_receipts set request_id = ${request.id}, matched_by = ${actor.user.id}, matched_at = now() where id = ${receipt.id}`);
    await recordActivity(
      {
        organizationId: actor.organization.id,
        userId: actor.user.id,
        type: "billing",
        status: "success",
        action: "M-Pesa payment matched",
        details: englishOf(
          words("app_activity_detail_c2b_matched", {
            receipt: receipt.trans_id,
            amount: { kes: Number(receipt.amount_kes) * 100 },
            reference: request.reference,
          }),
        ),
        meta,
      },
      tx,
    );
    return { receipt: receipt.trans_id, reference: request.reference };
  });
}
