import { randomInt } from "node:crypto";
import { eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { mpesaShortcodes } from "../../infrastructure/db/schema";
import { DarajaError, forgetDarajaToken, type DarajaClient } from "../../infrastructure/clients/daraja";
import { decryptSecret } from "../../infrastructure/security/crypto";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { englishOf, words, type MessageKey } from "../../infrastructure/words/said";
import { log } from "../../infrastructure/log";
import { recordActivity } from "../activity";
import { darajaForShortcode, shortcodeBaseUrl, type MpesaShortcode } from "./shortcodes-access";
import { ownShortcode, shortcodeCallbackUrls, shortcodeInLog, type PaymentsActor } from "./shortcodes";
import { can } from "../auth";
import { PAYMENTS_REFUSALS, refusePayments } from "./refusals";
import { m } from "~/paraglide/messages";

/**
 * "Test connection" (decision 136): an OAuth token with the shortcode's own key and secret, then an
 * STK query for a made-up CheckoutRequestID, which Daraja checks against the shortcode and its
 * passkey before it looks the id up: "Invalid CheckoutRequestID" means all three are right. A
 * sandbox shortcode is also sent a KES 1 push to Safaricom's test number, which a till called as a
 * paybill (or the other way round) ends as 2028; production is never pushed to (it would ring a real
 * phone), and its first payment tells instead (noteShortcodeResult).
 */
export const FAILURES = [
  "wrong_keys",
  "wrong_passkey",
  "wrong_shortcode",
  "no_product",
  "not_a_till",
  "not_a_paybill",
  "unreachable",
  "unexpected",
] as const;
export type ConnectionFailure = (typeof FAILURES)[number];

const FAILURE_WORDS: Record<ConnectionFailure, MessageKey> = {
  wrong_keys: "settings_payments_reason_wrong_keys",
  wrong_passkey: "settings_payments_reason_wrong_passkey",
  wrong_shortcode: "settings_payments_reason_wrong_shortcode",
  no_product: "settings_payments_reason_no_product",
  not_a_till: "settings_payments_reason_not_a_till",
  not_a_paybill: "settings_payments_reason_not_a_paybill",
  unreachable: "settings_payments_reason_unreachable",
  unexpected: "settings_payments_reason_unexpected",
};

/** The stored English of a failure (statusDetail), said in the request's language; anything else as stored. */
export function statusDetailInWords(stored: string | null): string | null {
  if (!stored) return null;
  const failure = FAILURES.find((f) => englishOf(words(FAILURE_WORDS[f])) === stored);
  return failure ? (m[FAILURE_WORDS[failure]] as () => string)() : stored;
}

/** Safaricom's own sandbox test MSISDN: the local sandbox pays it at once; Safaricom's rings nobody. */
const PROBE_PHONE = "254708374149";
/** Daraja's "not permitted according to product assignment": a till called as a paybill, or the other way round. */
const NOT_PERMITTED = 2028;

/** What a Daraja refusal says about the shortcode's settings. */
export function failureOf(error: unknown): ConnectionFailure {
  const failure = classify(error);
  // Daraja's code and words (never a credential) for whoever looks into an unexpected answer.
  if (failure === "unexpected")
    log().warn(
      { err: error instanceof DarajaError ? { code: error.errorCode, status: error.httpStatus, message: error.errorMessage } : error },
      "M-Pesa shortcode test: unexpected answer",
    );
  return failure;
}

function classify(error: unknown): ConnectionFailure {
  if (!(error instanceof DarajaError)) return "unexpected";
  if (error.httpStatus === 0) return "unreachable";
  const code = error.errorCode ?? "";
  const message = error.errorMessage.toLowerCase();
  if (code.startsWith("400.008")) return "wrong_keys";
  if (code === "500.001.1001" && message.includes("wrong credentials")) return "wrong_passkey";
  if (code === "500.001.1001" && message.includes("merchant does not exist")) return "wrong_shortcode";
  if (code === "400.002.02" && message.includes("businessshortcode")) return "wrong_shortcode";
  if (code === "404.001.03" || code === "401.003.01" || message.includes("no apiproduct")) return "no_product";
  if (error.httpStatus === 401) return "wrong_keys";
  if (error.httpStatus >= 502) return "unreachable";
  return "unexpected";
}

const madeUpCheckoutId = () => `ws_CO_000000000000000${String(randomInt(0, 1_000_000_000)).padStart(9, "0")}`;

/** Token, then shortcode and passkey; then, in a sandbox, the product. Null when all is well. */
async function probe(row: MpesaShortcode, client: DarajaClient): Promise<ConnectionFailure | null> {
  try {
    await client.stkQuery(madeUpCheckoutId());
  } catch (error) {
    // The shortcode, passkey and token passed; only the made-up id is unknown.
    const unknownId = error instanceof DarajaError && error.errorCode === "400.002.02" && /checkoutrequestid/i.test(error.errorMessage);
    if (!unknownId) return failureOf(error);
  }
  if (row.environment !== "sandbox") return null;
  try {
    const push = await client.stkPush({
      phone: PROBE_PHONE,
      amountKes: 1,
      accountReference: "JUMBE-TEST",
      description: "Jumbe test",
      callbackUrl: shortcodeCallbackUrls(row.callbackToken).stk,
    });
    const result = await client.stkQuery(push.checkoutRequestId);
    if (result.state === "done" && result.resultCode === NOT_PERMITTED) return row.kind === "till" ? "not_a_till" : "not_a_paybill";
  } catch (error) {
    // Another prompt pending on the test number: the shortcode and passkey passed again; the product is told by the first payment.
    if (error instanceof DarajaError && /unable to lock subscriber/i.test(error.errorMessage)) return null;
    return failureOf(error);
  }
  return null;
}

export interface ConnectionResult {
  label: string;
  working: boolean;
  /** In the request's language, when not working. */
  reason: string | null;
}

/** Tests the shortcode's connection, stores what it found (status, statusDetail, testedAt) and logs it. */
export async function testShortcode(actor: PaymentsActor, id: string, meta?: RequestMeta): Promise<ConnectionResult> {
  if (!can(actor.role, "payments:manage")) throw refusePayments(403, "forbidden", PAYMENTS_REFUSALS.forbidden);
  const row = await ownShortcode(actor.organization.id, id);
  forgetDarajaToken(shortcodeBaseUrl(row.environment), decryptSecret(row.consumerKeySealed));
  const failure = await probe(row, darajaForShortcode(row));
  const detail = failure ? englishOf(words(FAILURE_WORDS[failure])) : null;
  if (failure) log().info({ organizationId: actor.organization.id, shortcodeId: row.id, failure }, "M-Pesa shortcode test failed");
  await db().transaction(async (tx) => {
    await tx
      .update(mpesaShortcodes)
      .set({ status: failure ? "failing" : "working", statusDetail: detail, testedAt: new Date(), updatedAt: new Date() })
      .where(eq(mpesaShortcodes.id, row.id));
    await recordActivity(
      {
        organizationId: actor.organization.id,
        userId: actor.user.id,
        type: "settings",
        status: failure ? "warning" : "success",
        action: "M-Pesa shortcode tested",
        details: englishOf(
          failure
            ? words("app_activity_detail_shortcode_failing", { shortcode: shortcodeInLog(row), reason: words(FAILURE_WORDS[failure]) })
            : words("app_activity_detail_shortcode_working", { shortcode: shortcodeInLog(row) }),
        ),
        meta,
      },
      tx,
    );
  });
  if (!failure && !row.c2bRegisteredAt) await registerShortcodeC2bUrls(row);
  return { label: row.label, working: !failure, reason: failure ? (m[FAILURE_WORDS[failure]] as () => string)() : null };
}

/**
 * Registers the shortcode's C2B addresses with Daraja after its first working test (decision 137), so a
 * customer who pays the paybill or till by hand with a request's reference settles it; records when.
 * Daraja registers a production shortcode's URLs once ("Urls are already registered" is taken as done);
 * any other refusal is logged and tried again at the next test.
 */
export async function registerShortcodeC2bUrls(row: MpesaShortcode) {
  const urls = shortcodeCallbackUrls(row.callbackToken);
  try {
    await darajaForShortcode(row).registerC2bUrls({
      validationUrl: urls.validation,
      confirmationUrl: urls.confirmation,
      responseType: "Completed",
    });
  } catch (error) {
    if (!(error instanceof DarajaError && /already registered/i.test(error.errorMessage))) {
      log().warn({ shortcodeId: row.id, err: error }, "M-Pesa C2B addresses not registered");
      return false;
    }
  }
  await db().update(mpesaShortcodes).set({ c2bRegisteredAt: new Date() }).where(eq(mpesaShortcodes.id, row.id));
  return true;
}

/**
 * What a real payment's result says about the shortcode (for payment requests): 2028 means it was
 * set up as the wrong kind, so it is marked failing with those words; a payment that went through
 * marks it working.
 */
export async function noteShortcodeResult(shortcode: Pick<MpesaShortcode, "id" | "kind">, resultCode: number) {
  if (resultCode !== NOT_PERMITTED && resultCode !== 0) return;
  const failure: ConnectionFailure | null =
    resultCode === NOT_PERMITTED ? (shortcode.kind === "till" ? "not_a_till" : "not_a_paybill") : null;
  await db()
    .update(mpesaShortcodes)
    .set({
      status: failure ? "failing" : "working",
      statusDetail: failure ? englishOf(words(FAILURE_WORDS[failure])) : null,
      updatedAt: new Date(),
    })
    .where(eq(mpesaShortcodes.id, shortcode.id));
}
