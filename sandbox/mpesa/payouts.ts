import { constants, generateKeyPairSync, privateDecrypt } from "node:crypto";
import { conversationId, eatParts, eatStamp, receiptNumber } from "./daraja-format";
import type { CallbackPoster } from "./deliveries";
import type { CallbackRecord, Payout, PayoutState, ResolvedOptions } from "./types";

export { SANDBOX_INITIATOR_NAME, SANDBOX_INITIATOR_PASSWORD } from "./credential-keys";

/**
 * M-Pesa B2C (business to customer) payouts, as Daraja's `POST /mpesa/b2c/v3/paymentrequest` does
 * them: the request is only accepted at once; the outcome is POSTed to its ResultURL later (or, when
 * the request expires in Safaricom's queue, to its QueueTimeOutURL), and the transaction status
 * query (`POST /mpesa/transactionstatus/v1/query`) posts what became of it to its own ResultURL.
 * Facts: /work/shared/reference/integrations-ai-payouts.md, "M-Pesa Daraja B2C".
 */

/** ResultCode and Safaricom's ResultDesc of each B2C outcome the sandbox gives. */
export const B2C_RESULTS = {
  paid: { code: 0, desc: "The service request is processed successfully." },
  insufficient_funds: { code: 1, desc: "The balance is insufficient for the transaction." },
  below_minimum: { code: 2, desc: "Declined due to limit rule: less than the minimum transaction amount." },
  above_maximum: { code: 3, desc: "Declined due to limit rule: greater than the maximum transaction amount." },
  duplicate: { code: 15, desc: "Duplicate OriginatorConversationID." },
  invalid_initiator: { code: 2001, desc: "The initiator information is invalid." },
} as const;
export type B2cOutcome = keyof typeof B2C_RESULTS;

/**
 * Amounts (whole shillings) that decide a payout's fate, for unattended tests (sandbox/README.md,
 * "M-Pesa B2C payouts"). Any other amount from 10 to 150,000 is paid.
 */
export const MAGIC_AMOUNTS: Record<number, { label: string; fate: B2cOutcome | "queue_timeout" | "no_callback" }> = {
  1001: { label: "Insufficient funds in the utility account (ResultCode 1)", fate: "insufficient_funds" },
  1015: { label: "Duplicate (ResultCode 15), nothing paid", fate: "duplicate" },
  2001: { label: "Invalid initiator information (ResultCode 2001)", fate: "invalid_initiator" },
  1408: { label: "Expires in the queue: QueueTimeOutURL is called, nothing paid", fate: "queue_timeout" },
  1404: { label: "Paid, but no result callback ever comes (ask the transaction status query)", fate: "no_callback" },
};

export const B2C_MIN_AMOUNT = 10;
export const B2C_MAX_AMOUNT = 150_000;

export interface NewPayout {
  originatorConversationId: string;
  initiatorName: string;
  securityCredential: string;
  commandId: string;
  amount: number;
  partyA: string;
  partyB: string;
  remarks: string;
  occasion: string;
  resultUrl: string;
  queueTimeoutUrl: string;
}

/** The sandbox's utility account starts with this much (KES) and each paid payout takes from it. */
const OPENING_BALANCE = 5_000_000;
const KEEP_PAYOUTS = 2000;

/** A name for the receiver as M-Pesa shows it ("2547… - Name"): the sandbox's customers are all Wanjiku Kamau. */
const RECEIVER_NAME = "Wanjiku Kamau";

/** `DD.MM.YYYY HH:mm:ss` in Nairobi: B2C's TransactionCompletedDateTime. */
export function completedDateTime(ms: number) {
  const p = eatParts(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(p.day)}.${pad(p.month)}.${p.year} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}

/** A key pair whose public half plays Safaricom's certificate: the initiator password is encrypted with it. */
export function sandboxCredentialKeys() {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

/**
 * SecurityCredential decrypted: RSA with PKCS#1 v1.5 padding, as Safaricom's certificate is used.
 * Node refuses that padding for private decryption (the Marvin timing attack), so the sandbox takes
 * the raw block and removes the padding itself (0x00 0x02, eight or more non-zero bytes, 0x00, the
 * message): fine for a stand-in that guards nothing real. Null when it is not such a block.
 */
export function decryptCredential(privateKeyPem: string, securityCredential: string): string | null {
  let block: Buffer;
  try {
    block = privateDecrypt({ key: privateKeyPem, padding: constants.RSA_NO_PADDING }, Buffer.from(securityCredential, "base64"));
  } catch {
    return null;
  }
  if (block[0] !== 0x00 || block[1] !== 0x02) return null;
  const end = block.indexOf(0x00, 2);
  if (end < 10) return null;
  return block.subarray(end + 1).toString("utf8");
}

/** The B2C desk: payouts, the utility account's balance, the results and status queries it posts. */
export class PayoutDesk {
  private byOriginator = new Map<string, Payout>();
  private balance = OPENING_BALANCE;

  constructor(
    private readonly options: ResolvedOptions & { initiatorName: string; initiatorPassword: string; privateKeyPem: string },
    private readonly poster: CallbackPoster,
  ) {}

  /** Whether SecurityCredential is the initiator's password encrypted with the certificate's key (PKCS#1 v1.5, base64). */
  credentialOk(initiatorName: string, securityCredential: string) {
    if (initiatorName !== this.options.initiatorName) return false;
    const plain = decryptCredential(this.options.privateKeyPem, securityCredential);
    return plain !== null && plain === this.options.initiatorPassword;
  }

  get(originatorConversationId: string) {
    return this.byOriginator.get(originatorConversationId);
  }

  byTransaction(transactionId: string) {
    for (const payout of this.byOriginator.values()) if (payout.receipt === transactionId) return payout;
    return undefined;
  }

  all(): Payout[] {
    return [...this.byOriginator.values()].reverse();
  }

  availableFunds() {
    return this.balance;
  }

  /**
   * Accepts a request (the caller answers ResponseCode 0) and schedules its result. A second request
   * with an OriginatorConversationID already seen pays nothing: its result is ResultCode 15.
   */
  accept(input: NewPayout): Payout {
    const now = this.options.now();
    const earlier = this.byOriginator.get(input.originatorConversationId);
    const payout: Payout = {
      OriginatorConversationID: input.originatorConversationId,
      ConversationID: conversationId(),
      commandId: input.commandId,
      partyA: input.partyA,
      partyB: input.partyB,
      amount: input.amount,
      remarks: input.remarks,
      occasion: input.occasion,
      resultUrl: input.resultUrl,
      queueTimeoutUrl: input.queueTimeoutUrl,
      createdAt: new Date(now).toISOString(),
      state: "accepted",
      silent: false,
    };
    if (earlier) {
      // The earlier request stays as it was; the repeat is answered as a duplicate and kept nowhere.
      void this.poster.schedule(this.options.callbackDelayMs, () => this.postResult({ ...payout, ...this.outcome("duplicate") }));
      return payout;
    }
    this.byOriginator.set(payout.OriginatorConversationID, payout);
    this.prune();
    const magic = MAGIC_AMOUNTS[input.amount]?.fate;
    const credentialOk = this.credentialOk(input.initiatorName, input.securityCredential);
    void this.poster.schedule(this.options.callbackDelayMs, async () => {
      if (magic === "queue_timeout") return this.expire(payout);
      const fate: B2cOutcome = !credentialOk
        ? "invalid_initiator"
        : magic && magic !== "no_callback"
          ? magic
          : input.amount < B2C_MIN_AMOUNT
            ? "below_minimum"
            : input.amount > B2C_MAX_AMOUNT
              ? "above_maximum"
              : input.amount > this.balance
                ? "insufficient_funds"
                : "paid";
      this.settle(payout, fate);
      if (magic === "no_callback" && fate === "paid") {
        payout.silent = true;
        return;
      }
      await this.postResult(payout);
    });
    return payout;
  }

  /**
   * The transaction status query (by TransactionID or OriginalConversationID): what became of a
   * payout, POSTed to `resultUrl` after the delay: ResultCode 0 with its TransactionStatus
   * (Completed, Failed, Expired) and receipt; one still in hand answers 500 "being processed", an
   * unknown one ResultCode 1 "could not be found" (the sandbox's words; sandbox/README.md).
   */
  query(input: { transactionId?: string; originalConversationId?: string; resultUrl: string }) {
    const payout =
      (input.originalConversationId && this.byOriginator.get(input.originalConversationId)) ||
      (input.transactionId && this.byTransaction(input.transactionId)) ||
      undefined;
    const ref = input.originalConversationId || input.transactionId || "";
    void this.poster.schedule(this.options.callbackDelayMs, async () => {
      await this.poster.post("b2c_status", ref, input.resultUrl, statusBody(payout, ref, this.options.now()));
    });
    return { ConversationID: conversationId() };
  }

  reset() {
    this.byOriginator.clear();
    this.balance = OPENING_BALANCE;
  }

  private outcome(fate: B2cOutcome) {
    return {
      state: (fate === "paid" ? "paid" : "failed") as PayoutState,
      resultCode: B2C_RESULTS[fate].code,
      resultDesc: B2C_RESULTS[fate].desc,
    };
  }

  private settle(payout: Payout, fate: B2cOutcome) {
    const now = this.options.now();
    Object.assign(payout, this.outcome(fate), { completedAt: now });
    if (fate === "paid") {
      payout.receipt = receiptNumber(now);
      this.balance -= payout.amount;
    }
  }

  private async expire(payout: Payout) {
    Object.assign(payout, {
      state: "expired",
      resultCode: 1,
      resultDesc: "The request expired in the queue.",
      completedAt: this.options.now(),
    });
    await this.poster.post("b2c_timeout", payout.OriginatorConversationID, payout.queueTimeoutUrl, {
      Result: {
        ResultType: 1,
        ResultCode: 1,
        ResultDesc: "The request expired in the queue.",
        OriginatorConversationID: payout.OriginatorConversationID,
        ConversationID: payout.ConversationID,
        TransactionID: "",
      },
    });
  }

  private async postResult(payout: Payout): Promise<CallbackRecord> {
    const { record } = await this.poster.post("b2c_result", payout.OriginatorConversationID, payout.resultUrl, this.resultBody(payout));
    return record;
  }

  private resultBody(payout: Payout) {
    const result: Record<string, unknown> = {
      ResultType: 0,
      ResultCode: payout.resultCode,
      ResultDesc: payout.resultDesc,
      OriginatorConversationID: payout.OriginatorConversationID,
      ConversationID: payout.ConversationID,
      TransactionID: payout.receipt ?? "",
    };
    if (payout.state === "paid")
      result.ResultParameters = {
        ResultParameter: [
          { Key: "TransactionAmount", Value: payout.amount },
          { Key: "TransactionReceipt", Value: payout.receipt },
          { Key: "B2CRecipientIsRegisteredCustomer", Value: "Y" },
          { Key: "B2CChargesPaidAccountAvailableFunds", Value: 0 },
          { Key: "ReceiverPartyPublicName", Value: `${payout.partyB} - ${RECEIVER_NAME}` },
          { Key: "TransactionCompletedDateTime", Value: completedDateTime(payout.completedAt ?? this.options.now()) },
          { Key: "B2CUtilityAccountAvailableFunds", Value: this.balance },
          { Key: "B2CWorkingAccountAvailableFunds", Value: 0 },
        ],
      };
    result.ReferenceData = { ReferenceItem: { Key: "QueueTimeoutURL", Value: payout.queueTimeoutUrl } };
    return { Result: result };
  }

  private prune() {
    if (this.byOriginator.size <= KEEP_PAYOUTS) return;
    for (const id of this.byOriginator.keys()) {
      if (this.byOriginator.size <= KEEP_PAYOUTS) break;
      this.byOriginator.delete(id);
    }
  }
}

/** The status query's result: the payout's receipt, amount and state, or "not found". */
function statusBody(payout: Payout | undefined, ref: string, now: number) {
  if (!payout || payout.state === "accepted")
    return {
      Result: {
        ResultType: 0,
        ResultCode: payout ? 500 : 1,
        ResultDesc: payout ? "The transaction is being processed." : "The transaction could not be found.",
        OriginatorConversationID: ref,
        ConversationID: conversationId(),
        TransactionID: "",
      },
    };
  const paid = payout.state === "paid";
  return {
    Result: {
      ResultType: 0,
      ResultCode: 0,
      ResultDesc: "The service request has been accepted successfully.",
      OriginatorConversationID: payout.OriginatorConversationID,
      ConversationID: payout.ConversationID,
      TransactionID: payout.receipt ?? "",
      ResultParameters: {
        ResultParameter: [
          { Key: "ReceiptNo", Value: payout.receipt ?? "" },
          { Key: "TransactionStatus", Value: paid ? "Completed" : payout.state === "expired" ? "Expired" : "Failed" },
          { Key: "ReasonType", Value: paid ? "Business Payment to Customer via API" : (payout.resultDesc ?? "") },
          { Key: "Amount", Value: payout.amount },
          { Key: "CreditPartyName", Value: `${payout.partyB} - ${RECEIVER_NAME}` },
          { Key: "FinalisedTime", Value: Number(eatStamp(payout.completedAt ?? now)) },
          { Key: "OriginatorConversationID", Value: payout.OriginatorConversationID },
        ],
      },
    },
  };
}
