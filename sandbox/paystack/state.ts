import { randomBytes } from "node:crypto";
import type { TestCard } from "./cards";

/**
 * Paystack's transaction statuses the sandbox uses: `abandoned` until the payer pays, `ongoing`
 * while the bank's 3-D Secure page waits for its code, then `success` or `failed` (a failed
 * transaction can still be paid with another card on the same checkout, as on Paystack's).
 */
export type TransactionStatus = "abandoned" | "ongoing" | "success" | "failed";

export interface ChargedCard {
  bin: string;
  last4: string;
  expMonth: string;
  expYear: string;
  brand: string;
  authorizationCode: string;
  signature: string;
}

export interface SandboxTransaction {
  id: number;
  reference: string;
  accessCode: string;
  email: string;
  amount: number;
  currency: string;
  callbackUrl: string | null;
  metadata: unknown;
  status: TransactionStatus;
  gatewayResponse: string;
  createdAt: Date;
  paidAt: Date | null;
  customerId: number;
  customerCode: string;
  card: ChargedCard | null;
  /** The card waiting for its 3-D Secure code (status `ongoing`). */
  pendingCard: TestCard | null;
  /** Attempts so far, oldest first: what the checkout or control API did. */
  log: { at: Date; action: string }[];
}

export interface NewTransaction {
  email: string;
  amount: number;
  currency: string;
  reference?: string;
  callbackUrl: string | null;
  metadata: unknown;
}

const ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyz0123456789";
const KEEP_TRANSACTIONS = 10_000;

function randomCode(length: number, alphabet = ALPHANUMERIC) {
  const bytes = randomBytes(length);
  let out = "";
  for (const byte of bytes) out += alphabet[byte % alphabet.length];
  return out;
}

/** In-memory transactions, by reference and by access code. */
export class TransactionStore {
  private byReference = new Map<string, SandboxTransaction>();
  private byAccessCode = new Map<string, SandboxTransaction>();
  private nextId = 4_100_000_001;
  private customers = new Map<string, { id: number; code: string }>();

  constructor(private readonly now: () => number) {}

  has(reference: string) {
    return this.byReference.has(reference);
  }

  create(input: NewTransaction): SandboxTransaction {
    let reference = input.reference;
    while (!reference || (input.reference === undefined && this.byReference.has(reference))) reference = randomCode(10);
    let accessCode = randomCode(15);
    while (this.byAccessCode.has(accessCode)) accessCode = randomCode(15);
    const customer = this.customerFor(input.email);
    const transaction: SandboxTransaction = {
      id: this.nextId++,
      reference,
      accessCode,
      email: input.email,
      amount: input.amount,
      currency: input.currency,
      callbackUrl: input.callbackUrl,
      metadata: input.metadata,
      status: "abandoned",
      gatewayResponse: "The transaction was not completed",
      createdAt: new Date(this.now()),
      paidAt: null,
      customerId: customer.id,
      customerCode: customer.code,
      card: null,
      pendingCard: null,
      log: [],
    };
    this.byReference.set(reference, transaction);
    this.byAccessCode.set(accessCode, transaction);
    this.trim();
    return transaction;
  }

  get(reference: string) {
    return this.byReference.get(reference);
  }

  byCode(accessCode: string) {
    return this.byAccessCode.get(accessCode);
  }

  /** Newest first. */
  list(): SandboxTransaction[] {
    return [...this.byReference.values()].reverse();
  }

  note(transaction: SandboxTransaction, action: string) {
    transaction.log.push({ at: new Date(this.now()), action });
  }

  reset() {
    this.byReference.clear();
    this.byAccessCode.clear();
    this.customers.clear();
  }

  private customerFor(email: string) {
    const key = email.toLowerCase();
    let customer = this.customers.get(key);
    if (!customer) {
      customer = { id: 300_000 + this.customers.size + 1, code: `CUS_${randomCode(15)}` };
      this.customers.set(key, customer);
    }
    return customer;
  }

  private trim() {
    if (this.byReference.size <= KEEP_TRANSACTIONS) return;
    const oldest = this.byReference.values().next().value!;
    this.byReference.delete(oldest.reference);
    this.byAccessCode.delete(oldest.accessCode);
  }
}

/** The card a payment leaves on the transaction (Paystack's `authorization`). */
export function chargedCard(card: TestCard, expiry: { month: string; year: string }): ChargedCard {
  return {
    bin: card.number.slice(0, 6),
    last4: card.number.slice(-4),
    expMonth: expiry.month,
    expYear: expiry.year,
    brand: card.brand,
    authorizationCode: `AUTH_${randomCode(10)}`,
    signature: `SIG_${randomCode(20)}`,
  };
}
