import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { CurrentUser } from "../../auth";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { isUuid } from "../../../infrastructure/db/keyset";
import { AMOUNT_DUE_SQL, issueInvoice, changeWallet, walletState, lineFromGross } from "../../billing";
import { notify } from "../../notifications";
import { words, type Message } from "../../../infrastructure/words/said";
import { formatKes, type InvoiceLine } from "~/lib/invoice";
import { recordAdminAction } from "../audit";
import { RESOLUTION_NOTE_MAX } from "~/lib/admin-billing";
import { refuseAdminBilling, NOT_FOUND, parseShillings } from "./refusal";
import { m } from "~/paraglide/messages";
import { formatNumber } from "~/lib/dates";

/**
 * Disputes of invoices (raised by tenants on /billing), resolved by an administrator (decision 035,
 * "Admin console"): by a credit note (CRN series) for the whole invoice or a part, or rejected with
 * a note the tenant sees. A credit of a whole unpaid invoice voids it; part of an unpaid one lowers
 * what is due (the rest stays due, the wallet untouched); a credit on a paid invoice goes to the
 * tenant's wallet as a ledger entry. Either way the dispute closes once: it is locked and must be open.
 */
export interface DisputeListRow {
  id: string;
  invoiceId: string;
  invoiceNumber: string;
  organizationId: string;
  businessName: string;
  reason: string;
  amountCents: number;
  raisedAt: string;
  status: "open" | "resolved";
  outcome: "credited" | "rejected" | null;
  resolution: string | null;
  resolvedAt: string | null;
  creditNoteNumber: string | null;
}

const when = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());

/** Open disputes (every one, oldest first) or resolved ones (the latest `limit`). */
export async function listDisputes(_scope: PlatformScope, status: "open" | "resolved", limit = 20): Promise<DisputeListRow[]> {
  const rows = await queryRows<{
    id: string;
    invoice_id: string;
    number: string;
    organization_id: string;
    business: string | null;
    reason: string;
    total_cents: string | number;
    created_at: string | Date;
    status: string;
    outcome: string | null;
    resolution: string | null;
    resolved_at: string | Date | null;
    credit_note: string | null;
  }>(
    db(),
    sql`
    select d.id, d.invoice_id, i.number, d.organization_id, o.name as business, d.reason, i.total_cents, d.created_at, d.status,
           d.outcome, d.resolution, d.resolved_at, c.number as credit_note
    from invoice_disputes d
    join invoices i on i.id = d.invoice_id
    left join organizations o on o.id = d.organization_id
    left join invoices c on c.id = d.credit_note_id
    where d.status = ${status}
    order by ${status === "open" ? sql`d.created_at asc` : sql`d.resolved_at desc`}
    limit ${limit}`,
  );
  return rows.map((r) => ({
    id: r.id,
    invoiceId: r.invoice_id,
    invoiceNumber: r.number,
    organizationId: r.organization_id,
    businessName: r.business ?? m.admin_erased_organisation(),
    reason: r.reason,
    amountCents: Number(r.total_cents),
    raisedAt: when(r.created_at)!,
    status: r.status as "open" | "resolved",
    outcome: r.outcome as DisputeListRow["outcome"],
    resolution: r.resolution,
    resolvedAt: when(r.resolved_at),
    creditNoteNumber: r.credit_note,
  }));
}

/** One dispute with its invoice (null: none). */
export async function adminDispute(_scope: PlatformScope, disputeId: string) {
  if (!isUuid(disputeId)) return null;
  const [row] = await queryRows<{
    id: string;
    invoice_id: string;
    status: "open" | "resolved";
    outcome: "credited" | "rejected" | null;
    reason: string;
    previous_status: string;
    created_at: string | Date;
    resolved_at: string | Date | null;
    resolution: string | null;
    credit_note_id: string | null;
    credit_note: string | null;
    raised_by: string | null;
    resolved_by: string | null;
  }>(
    db(),
    sql`
    select d.id, d.invoice_id, d.status, d.outcome, d.reason, d.previous_status, d.created_at, d.resolved_at, d.resolution,
           d.credit_note_id, c.number as credit_note, u.email as raised_by, r.email as resolved_by
    from invoice_disputes d
    left join invoices c on c.id = d.credit_note_id
    left join users u on u.id = d.raised_by
    left join users r on r.id = d.resolved_by
    where d.id = ${disputeId}`,
  );
  if (!row) return null;
  return {
    id: row.id,
    invoiceId: row.invoice_id,
    status: row.status,
    outcome: row.outcome,
    reason: row.reason,
    previousStatus: row.previous_status,
    raisedAt: when(row.created_at)!,
    raisedBy: row.raised_by,
    resolvedAt: when(row.resolved_at),
    resolvedBy: row.resolved_by,
    resolution: row.resolution,
    creditNote: row.credit_note_id ? { id: row.credit_note_id, number: row.credit_note ?? "" } : null,
  };
}

interface LockedDispute {
  id: string;
  organization_id: string;
  invoice_id: string;
  previous_status: string;
  reason: string;
  number: string;
  kind: string;
  status: string;
  total_cents: string | number;
  prices_include_vat: boolean;
  lines: InvoiceLine[];
  plan_type: string | null;
  billing_type: "prepaid" | "postpaid" | null;
  payment_id: string | null;
  /** Its total less the credit notes already against it. */
  left_cents: string | number;
}

/** The open dispute and its invoice, locked (the invoice first, then the dispute); a resolved one is refused. */
async function lockOpenDispute(tx: Executor, disputeId: string): Promise<LockedDispute> {
  if (!isUuid(disputeId)) throw refuseAdminBilling(404, NOT_FOUND);
  const found = await queryRows<LockedDispute & { dispute_status: string }>(
    tx,
    sql`
    select d.id, d.organization_id, d.invoice_id, d.previous_status, d.reason, d.status as dispute_status, i.number, i.kind, i.status,
           i.total_cents, i.prices_include_vat, i.lines, i.plan_type, i.billing_type, i.payment_id, ${AMOUNT_DUE_SQL} as left_cents
    from invoice_disputes d join invoices i on i.id = d.invoice_id
    where d.id = ${disputeId}
    for update of d, i`,
  );
  const row = found[0];
  if (!row) throw refuseAdminBilling(404, NOT_FOUND);
  if (row.dispute_status !== "open") throw refuseAdminBilling(409, m.admin_dispute_already_resolved({ number: row.number }));
  return row;
}

function parseNote(value: string, required: boolean) {
  const note = value.trim();
  if (required && note.length < 5) throw refuseAdminBilling(422, m.admin_dispute_note_short(), "note");
  if (note.length > RESOLUTION_NOTE_MAX)
    throw refuseAdminBilling(422, m.admin_dispute_note_long({ max: formatNumber(RESOLUTION_NOTE_MAX) }), "note");
  return note || null;
}

/** Resolves the dispute with a credit note for `amount` (KES; empty: the invoice's whole total). */
export async function creditDispute(current: CurrentUser, meta: RequestMeta, disputeId: string, input: { amount: string; note: string }) {
  const note = parseNote(input.note, false);
  return db().transaction(async (tx) => {
    const dispute = await lockOpenDispute(tx, disputeId);
    const total = Number(dispute.total_cents);
    const amountCents = input.amount.trim() ? parseShillings(input.amount) : total;
    if (amountCents === null || amountCents <= 0 || amountCents > total)
      throw refuseAdminBilling(422, m.admin_dispute_amount_range({ total: formatKes(total) }), "amount");
    const whole = amountCents === total;
    const unpaid = dispute.previous_status === "pending" || dispute.previous_status === "overdue";
    // Money that went into the wallet when the document was paid: a top-up's tax invoice, a bank transfer's, a receipt on account.
    const toppedUp = dispute.kind === "topup" || dispute.kind === "bank_transfer";
    if (!unpaid && toppedUp && amountCents > Number(dispute.left_cents))
      throw refuseAdminBilling(422, m.admin_dispute_amount_range({ total: formatKes(Number(dispute.left_cents)) }), "amount");
    const creditNote = await issueInvoice(tx, {
      organizationId: dispute.organization_id,
      series: "CRN",
      kind: "credit_note",
      status: "paid",
      description: `Credit note for ${dispute.number}`,
      lines: whole
        ? dispute.lines.map((line) => ({ ...line, description: `Credit: ${line.description}` }))
        : [
            lineFromGross({
              description: `Credit for ${dispute.number}`,
              itemCode: "JMB-CREDIT",
              quantity: 1,
              unit: "credit",
              unitPriceCents: amountCents,
            }),
          ],
      pricesIncludeVat: whole ? dispute.prices_include_vat : true,
      paidAt: new Date(),
      planType: dispute.plan_type,
      billingType: dispute.billing_type,
    });
    await tx.execute(sql`update invoices set credits_invoice_id = ${dispute.invoice_id} where id = ${creditNote.id}`);
    let invoiceStatus = dispute.previous_status;
    if (unpaid && whole) {
      // Nothing was paid and nothing is owed: the invoice is void, and a bank transfer it awaited can no longer be reconciled.
      invoiceStatus = "void";
      if (dispute.payment_id)
        await tx.execute(sql`
          update payments set status = 'failed', failure_reason = ${`Cancelled by credit note ${creditNote.number}`}, completed_at = now(),
                 result_code = 'credited', next_check_at = null
          where id = ${dispute.payment_id} and status = 'pending'`);
    } else if (!unpaid) {
      await moneyBack(tx, current, dispute, { id: creditNote.id, number: creditNote.number, amountCents, toppedUp });
    }
    // Part of an unpaid invoice: the credit note lowers what is due, and the rest is due as before (the wallet is untouched).
    // A bank transfer it awaits is now for what is left: reconciling it credits what the tenant pays.
    if (unpaid && !whole && dispute.payment_id)
      await tx.execute(sql`
        update payments set amount_cents = amount_cents - ${amountCents} where id = ${dispute.payment_id} and status = 'pending'`);
    await tx.execute(sql`update invoices set status = ${invoiceStatus} where id = ${dispute.invoice_id}`);
    await closeDispute(tx, current, dispute.id, { outcome: "credited", note, creditNoteId: creditNote.id });
    await recordAdminAction(tx, current, meta, {
      action: "dispute.credit",
      organizationId: dispute.organization_id,
      targetType: "dispute",
      targetId: dispute.id,
      reason: note,
      before: { invoice: dispute.number, status: "disputed" },
      after: {
        status: invoiceStatus,
        creditNote: creditNote.number,
        creditedCents: amountCents,
        to: invoiceStatus === "void" ? "void" : unpaid ? "amount due" : toppedUp ? "payer" : "wallet",
        ...(unpaid && !whole ? { dueCents: total - amountCents } : {}),
      },
    });
    await tellTenant(
      tx,
      dispute,
      words("app_notice_dispute_credited_title", { number: dispute.number, note: creditNote.number, amount: { kes: amountCents } }),
      note,
    );
    return {
      invoiceNumber: dispute.number,
      creditNoteNumber: creditNote.number,
      amountCents,
      voided: invoiceStatus === "void",
      toPayer: !unpaid && toppedUp,
      dueCents: unpaid && !whole ? total - amountCents : null,
    };
  });
}

/**
 * A paid document's credit. A paid top-up or receipt put its money into the wallet when it was paid:
 * crediting it again would give that money twice (issue 72, decision 124). Its credit leaves the wallet
 * instead, to be paid back to the payer, never more than the wallet still holds (what was spent paid for
 * messages or invoices): else a 422 at the amount. Any other paid invoice's credit is money back, to the wallet.
 */
async function moneyBack(
  tx: Executor,
  current: CurrentUser,
  dispute: LockedDispute,
  credit: { id: string; number: string; amountCents: number; toppedUp: boolean },
) {
  if (credit.toppedUp) {
    const entry = await changeWallet(tx, {
      organizationId: dispute.organization_id,
      kind: "refund",
      amountCents: -credit.amountCents,
      invoiceId: credit.id,
      description: `Credit note ${credit.number} for ${dispute.number}: paid back to the payer`,
      createdBy: current.user.id,
    });
    if (entry) return;
    const { availableCents } = await walletState(tx, dispute.organization_id);
    throw refuseAdminBilling(
      422,
      m.admin_dispute_topup_spent({ number: dispute.number, available: formatKes(Math.max(0, availableCents)) }),
      "amount",
    );
  }
  const entry = await changeWallet(tx, {
    organizationId: dispute.organization_id,
    kind: "refund",
    amountCents: credit.amountCents,
    invoiceId: credit.id,
    description: `Credit note ${credit.number} for ${dispute.number}`,
    createdBy: current.user.id,
  });
  if (!entry) throw refuseAdminBilling(409, m.admin_dispute_no_wallet());
}

/** Rejects the dispute with the note the tenant sees; the invoice returns to the status it had before. */
export async function rejectDispute(current: CurrentUser, meta: RequestMeta, disputeId: string, input: { note: string }) {
  const note = parseNote(input.note, true)!;
  return db().transaction(async (tx) => {
    const dispute = await lockOpenDispute(tx, disputeId);
    await tx.execute(sql`update invoices set status = ${dispute.previous_status} where id = ${dispute.invoice_id}`);
    await closeDispute(tx, current, dispute.id, { outcome: "rejected", note, creditNoteId: null });
    await recordAdminAction(tx, current, meta, {
      action: "dispute.reject",
      organizationId: dispute.organization_id,
      targetType: "dispute",
      targetId: dispute.id,
      reason: note,
      before: { invoice: dispute.number, status: "disputed" },
      after: { status: dispute.previous_status },
    });
    await tellTenant(tx, dispute, words("app_notice_dispute_rejected_title", { number: dispute.number }), note);
    return { invoiceNumber: dispute.number, status: dispute.previous_status };
  });
}

async function closeDispute(
  tx: Executor,
  current: CurrentUser,
  disputeId: string,
  outcome: { outcome: "credited" | "rejected"; note: string | null; creditNoteId: string | null },
) {
  await tx.execute(sql`
    update invoice_disputes set status = 'resolved', resolved_at = now(), resolved_by = ${current.user.id}, resolution = ${outcome.note},
           outcome = ${outcome.outcome}, credit_note_id = ${outcome.creditNoteId}
    where id = ${disputeId}`);
}

/** The administrator's note is their own words, shown as they wrote it under the reader's title. */
async function tellTenant(tx: Executor, dispute: LockedDispute, title: Message, note: string | null) {
  await notify(
    {
      organizationId: dispute.organization_id,
      event: "invoice_issued",
      words: { title, ...(note ? { body: note } : {}) },
      link: `/billing/invoices/${dispute.invoice_id}`,
      dedupeKey: `dispute-resolved:${dispute.id}`,
    },
    tx,
  );
}
