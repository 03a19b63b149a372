import type { SandboxTransaction } from "./state";

/** The sandbox's stand-in for Paystack's card fee: 2.9% of the amount (an approximation). */
export const FEE_RATE = 0.029;

/** `{ status: true, message, data }`: every Paystack success. */
export const ok = (message: string, data: unknown) => ({ status: true, message, data });

/** `{ status: false, message }` with Paystack's newer `type` and `code` fields. */
export const failure = (message: string, code: string, type = "validation_error") => ({ status: false, message, type, code });

const iso = (date: Date | null) => (date ? date.toISOString().replace(/\.\d{3}Z$/, ".000Z") : null);

function authorization(tx: SandboxTransaction) {
  if (!tx.card) return {};
  return {
    authorization_code: tx.card.authorizationCode,
    bin: tx.card.bin,
    last4: tx.card.last4,
    exp_month: tx.card.expMonth,
    exp_year: tx.card.expYear,
    channel: "card",
    card_type: `${tx.card.brand} `,
    bank: "TEST BANK",
    country_code: "KE",
    brand: tx.card.brand,
    reusable: tx.status === "success",
    signature: tx.card.signature,
    account_name: null,
  };
}

function customer(tx: SandboxTransaction) {
  return {
    id: tx.customerId,
    first_name: null,
    last_name: null,
    email: tx.email,
    customer_code: tx.customerCode,
    phone: null,
    metadata: null,
    risk_action: "default",
  };
}

/**
 * A transaction as Paystack's verify endpoint and `charge.success` webhook describe it. `domain`
 * is `test` for an sk_test_ key.
 */
export function transactionData(tx: SandboxTransaction, domain: "test" | "live") {
  const paid = tx.status === "success";
  return {
    id: tx.id,
    domain,
    status: tx.status,
    reference: tx.reference,
    receipt_number: null,
    amount: tx.amount,
    message: null,
    gateway_response: tx.gatewayResponse,
    paid_at: iso(tx.paidAt),
    created_at: iso(tx.createdAt),
    channel: "card",
    currency: tx.currency,
    ip_address: "127.0.0.1",
    metadata: tx.metadata ?? "",
    log: null,
    fees: paid ? Math.round(tx.amount * FEE_RATE) : null,
    fees_split: null,
    authorization: authorization(tx),
    customer: customer(tx),
    plan: null,
    split: {},
    order_id: null,
    paidAt: iso(tx.paidAt),
    createdAt: iso(tx.createdAt),
    requested_amount: tx.amount,
    pos_transaction_data: null,
    source: null,
    fees_breakdown: null,
    transaction_date: iso(tx.createdAt),
    plan_object: {},
    subaccount: {},
  };
}
