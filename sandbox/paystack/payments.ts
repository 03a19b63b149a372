import { OTP_FAILED_RESPONSE, TEST_OTP, type TestCard } from "./cards";
import { transactionData } from "./shapes";
import { chargedCard, type SandboxTransaction, type TransactionStore } from "./state";
import type { WebhookSender } from "./webhooks";

export type PaymentResult =
  { kind: "paid" } | { kind: "declined"; gatewayResponse: string } | { kind: "otp" } | { kind: "refused"; message: string };

/** The expiry a test card gets when paid through the control API: December, three years on. */
export function controlExpiry(now: Date) {
  return { month: "12", year: String(now.getUTCFullYear() + 3) };
}

/**
 * What a card does to a transaction, the same from the checkout and from the control API:
 * success pays it and sends `charge.success`, a decline fails it (no webhook: Paystack sends none
 * for a declined card), 3-D Secure parks it `ongoing` until the code comes.
 */
export class PaymentDesk {
  constructor(
    private readonly store: TransactionStore,
    private readonly sender: WebhookSender,
    private readonly domain: "test" | "live",
    private readonly now: () => number,
  ) {}

  payWithCard(tx: SandboxTransaction, card: TestCard, expiry: { month: string; year: string }): PaymentResult {
    if (tx.status === "success") return { kind: "refused", message: "This transaction has already been paid." };
    this.store.note(tx, `card ${card.number.slice(-4)}: ${card.outcome}`);
    if (card.outcome === "3ds") {
      tx.status = "ongoing";
      tx.gatewayResponse = "Awaiting 3-D Secure authentication";
      tx.pendingCard = card;
      tx.card = chargedCard(card, expiry);
      return { kind: "otp" };
    }
    if (card.outcome === "declined") return this.decline(tx, card, expiry, card.gatewayResponse);
    return this.pay(tx, card, expiry);
  }

  submitOtp(tx: SandboxTransaction, otp: string): PaymentResult {
    const card = tx.pendingCard;
    if (tx.status !== "ongoing" || !card || !tx.card)
      return { kind: "refused", message: "No one-time code is awaited for this transaction." };
    const expiry = { month: tx.card.expMonth, year: tx.card.expYear };
    tx.pendingCard = null;
    const passed = otp.trim() === TEST_OTP;
    this.store.note(tx, `3-D Secure code ${passed ? "accepted" : "refused"}`);
    return passed ? this.pay(tx, card, expiry) : this.decline(tx, card, expiry, OTP_FAILED_RESPONSE);
  }

  private pay(tx: SandboxTransaction, card: TestCard, expiry: { month: string; year: string }): PaymentResult {
    tx.status = "success";
    tx.gatewayResponse = card.gatewayResponse;
    tx.paidAt = new Date(this.now());
    tx.card = chargedCard(card, expiry);
    tx.pendingCard = null;
    this.sender.send("charge.success", tx.reference, transactionData(tx, this.domain));
    return { kind: "paid" };
  }

  private decline(tx: SandboxTransaction, card: TestCard, expiry: { month: string; year: string }, gatewayResponse: string): PaymentResult {
    tx.status = "failed";
    tx.gatewayResponse = gatewayResponse;
    tx.card = chargedCard(card, expiry);
    tx.pendingCard = null;
    return { kind: "declined", gatewayResponse };
  }
}
