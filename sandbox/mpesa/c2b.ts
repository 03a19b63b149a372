import { eatStamp, receiptNumber, sha256Hex } from "./daraja-format";
import type { CallbackPoster } from "./deliveries";
import { MSISDN } from "./validation";
import type { C2bInput, C2bRegistration, C2bResult, MsisdnFormat, ResolvedOptions } from "./types";

export class C2bInputError extends Error {}

/** Paybill (C2B) payments: registered URLs per shortcode, and payments that call them. */
export class C2bDesk {
  private byShortCode = new Map<string, C2bRegistration>();
  private balance = 250_000;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly poster: CallbackPoster,
  ) {}

  register(registration: Omit<C2bRegistration, "registeredAt">) {
    const entry = { ...registration, registeredAt: new Date(this.options.now()).toISOString() };
    this.byShortCode.set(registration.shortCode, entry);
    return entry;
  }

  list(): C2bRegistration[] {
    return [...this.byShortCode.values()];
  }

  reset() {
    this.byShortCode.clear();
    this.balance = 250_000;
  }

  /**
   * A customer pays the paybill: the validation URL first (when registered), whose answer decides,
   * or ResponseType when it cannot be reached; then the confirmation when accepted.
   */
  async pay(input: C2bInput): Promise<C2bResult> {
    const checked = checkC2bInput(input, this.options.shortcode);
    const now = this.options.now();
    const transId = checked.transId ?? receiptNumber(now);
    const payload: Record<string, string> = {
      TransactionType: checked.commandId === "CustomerBuyGoodsOnline" ? "Buy Goods" : "Pay Bill",
      TransID: transId,
      TransTime: eatStamp(now),
      TransAmount: checked.amount.toFixed(2),
      BusinessShortCode: checked.shortCode,
      BillRefNumber: checked.billRefNumber,
      InvoiceNumber: "",
      OrgAccountBalance: "",
      ThirdPartyTransID: "",
      MSISDN: msisdnAs(checked.msisdn, checked.msisdnFormat),
      FirstName: checked.firstName,
      MiddleName: "",
      LastName: "",
    };
    const registration = this.byShortCode.get(checked.shortCode);
    const base = { transId, shortCode: checked.shortCode, payload };
    if (!registration)
      return {
        ...base,
        validation: { called: false, reason: `No URLs are registered for shortcode ${checked.shortCode}.` },
        outcome: "unregistered",
        confirmations: [],
      };

    const validation = await this.validate(registration, payload, transId);
    const proceeds =
      validation.called === false ||
      validation.result === "accepted" ||
      (validation.result === "unreachable" && registration.responseType === "Completed");
    if (!proceeds)
      return {
        ...base,
        validation,
        outcome: validation.called && validation.result === "rejected" ? "rejected" : "cancelled",
        confirmations: [],
      };

    this.balance += checked.amount;
    const confirmation = { ...payload, OrgAccountBalance: this.balance.toFixed(2) };
    const confirmations: C2bResult["confirmations"] = [];
    for (let copy = 1; copy <= checked.confirmations; copy++) {
      const { result } = await this.poster.post("c2b_confirmation", transId, registration.confirmationUrl, confirmation, copy);
      confirmations.push({ url: registration.confirmationUrl, status: result.status, ...(result.error ? { error: result.error } : {}) });
    }
    return { ...base, payload: confirmation, validation, outcome: "completed", confirmations };
  }

  private async validate(
    registration: C2bRegistration,
    payload: Record<string, string>,
    transId: string,
  ): Promise<C2bResult["validation"]> {
    if (!registration.validationUrl) return { called: false, reason: "No validation URL is registered." };
    const url = registration.validationUrl;
    const { result } = await this.poster.post("c2b_validation", transId, url, payload, 1, this.options.validationTimeoutMs);
    if (result.status === null || result.status < 200 || result.status > 299)
      return { called: true, url, status: result.status, answer: result.error ?? result.answer ?? null, result: "unreachable" };
    let answer: unknown;
    try {
      answer = JSON.parse(result.answer ?? "");
    } catch {
      return { called: true, url, status: result.status, answer: result.answer ?? null, result: "unreachable" };
    }
    const code = answer && typeof answer === "object" ? (answer as Record<string, unknown>).ResultCode : undefined;
    if (code === undefined || code === null) return { called: true, url, status: result.status, answer, result: "unreachable" };
    const resultCode = String(code);
    return { called: true, url, status: result.status, answer, resultCode, result: resultCode === "0" ? "accepted" : "rejected" };
  }
}

function msisdnAs(msisdn: string, format: MsisdnFormat) {
  if (format === "hashed") return sha256Hex(msisdn);
  if (format === "masked") return `0${msisdn.slice(3, 6)}***${msisdn.slice(-3)}`;
  return msisdn;
}

/** The payment's fields, checked; bad ones throw C2bInputError with a sentence. */
export function checkC2bInput(input: C2bInput, defaultShortCode: string) {
  const msisdn = String(input.msisdn ?? "").trim();
  if (!MSISDN.test(msisdn)) throw new C2bInputError("msisdn must be a Kenyan mobile number as 2547XXXXXXXX or 2541XXXXXXXX.");
  const amount = typeof input.amount === "string" ? Number(input.amount) : input.amount;
  if (typeof amount !== "number" || !Number.isInteger(amount) || amount < 1 || amount > 250_000)
    throw new C2bInputError("amount must be whole shillings from 1 to 250000.");
  const shortCode = String(input.shortCode ?? defaultShortCode);
  if (!/^\d{5,7}$/.test(shortCode)) throw new C2bInputError("shortCode must be 5 to 7 digits.");
  const transId = input.transId === undefined || input.transId === "" ? undefined : String(input.transId);
  if (transId !== undefined && !/^[A-Z0-9]{10}$/.test(transId)) throw new C2bInputError("transId must be 10 capital letters and digits.");
  const commandId = input.commandId ?? "CustomerPayBillOnline";
  if (commandId !== "CustomerPayBillOnline" && commandId !== "CustomerBuyGoodsOnline")
    throw new C2bInputError("commandId must be CustomerPayBillOnline or CustomerBuyGoodsOnline.");
  const billRefNumber = String(input.billRefNumber ?? "").trim();
  if (billRefNumber.length > 20 || (billRefNumber === "" && commandId === "CustomerPayBillOnline"))
    throw new C2bInputError("billRefNumber (the account number the customer types) must be 1 to 20 characters.");
  const msisdnFormat = input.msisdnFormat ?? "plain";
  if (!["plain", "hashed", "masked"].includes(msisdnFormat)) throw new C2bInputError("msisdnFormat must be plain, hashed or masked.");
  const firstName = String(input.firstName ?? "AMINA").slice(0, 40);
  const confirmations = input.confirmations ?? 1;
  if (!Number.isInteger(confirmations) || confirmations < 1 || confirmations > 10)
    throw new C2bInputError("confirmations must be a whole number from 1 to 10.");
  return { msisdn, amount, billRefNumber, shortCode, transId, commandId, msisdnFormat, firstName, confirmations };
}
