import type { CurrentUser } from "../auth/guards";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { log } from "../../infrastructure/log";
import { completeEmbeddedSignup, EmbeddedSignupError, type ConnectedAccount } from "./embedded-signup";
import { GraphApiError, GraphNetworkError } from "../../infrastructure/clients/whatsapp-graph/graph-client";
import { isValidSignupState } from "./signup-state";

/** Why a signup failed, as a fixed code: the page shows its text, so a crafted URL cannot put words on it. */
export const FAILURE_REASONS = {
  cancelled: "Signup was closed in Meta's window before it finished.",
  state: "This signup link was not started from your session. Please start again from WhatsApp Setup.",
  invalid: "The signup parameters are not valid.",
  expired: "The signup code from Meta has expired or was already used. Please connect again.",
  not_granted: "Meta did not grant Jumbe access to the WhatsApp Business Account you chose.",
  taken: "This WhatsApp Business Account is connected to another organisation.",
  no_numbers: "The WhatsApp Business Account has no phone number yet. Add one in Meta's window and connect again.",
  register: "Meta refused to register the phone number for the Cloud API.",
  graph: "Meta answered with an error. Please try again in a moment.",
  network: "Meta could not be reached. Please try again in a moment.",
} as const;

export type FailureReason = keyof typeof FAILURE_REASONS;

export type CallbackOutcome =
  | { kind: "missing" }
  | { kind: "connected"; account: ConnectedAccount }
  | { kind: "failed"; reason: FailureReason; status: number; detail?: string };

const DIGITS = /^\d{1,32}$/;

/** /embedded-callback and GET /api/meta/embedded-callback: check the query, then complete the signup. */
export async function handleEmbeddedCallback(current: CurrentUser, url: URL, meta: RequestMeta): Promise<CallbackOutcome> {
  const q = url.searchParams;
  if (q.get("error")) return { kind: "failed", reason: "cancelled", status: 400 };
  const code = q.get("code")?.trim();
  const wabaId = q.get("shared_waba_id")?.trim();
  if (!code || !wabaId) return { kind: "missing" };
  const phoneNumberId = q.get("phone_number_id")?.trim() || undefined;
  if (code.length > 2048 || !DIGITS.test(wabaId) || (phoneNumberId && !DIGITS.test(phoneNumberId)))
    return { kind: "failed", reason: "invalid", status: 400 };
  if (!isValidSignupState(current, q.get("state"))) return { kind: "failed", reason: "state", status: 403 };
  try {
    const account = await completeEmbeddedSignup(current, { code, wabaId, phoneNumberId }, meta);
    return { kind: "connected", account };
  } catch (error) {
    const failure = classify(error);
    if (failure.reason === "network" || (failure.reason === "graph" && !(error instanceof GraphApiError)))
      log().error({ err: error }, "embedded signup failed");
    return { kind: "failed", ...failure };
  }
}

function classify(error: unknown): { reason: FailureReason; status: number; detail?: string } {
  if (error instanceof EmbeddedSignupError)
    return { reason: error.reason, status: error.reason === "taken" ? 409 : error.reason === "not_granted" ? 403 : 422 };
  if (error instanceof GraphApiError) {
    const detail = error.summary;
    if (error.step === "oauth" && error.code === 100) return { reason: "expired", status: 400, detail };
    if (error.step === "register") return { reason: "register", status: 502, detail };
    return { reason: "graph", status: 502, detail };
  }
  if (error instanceof GraphNetworkError) return { reason: "network", status: 504 };
  throw error;
}
