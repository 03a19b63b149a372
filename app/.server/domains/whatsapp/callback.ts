import type { CurrentUser } from "../auth";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { log } from "../../infrastructure/log";
import { completeEmbeddedSignup, EmbeddedSignupError, type ConnectedAccount } from "./embedded-signup";
import { GraphApiError, GraphNetworkError } from "../../infrastructure/clients/whatsapp-graph/graph-client";
import { isValidSignupState } from "./signup-state";
import { m } from "~/paraglide/messages";

/**
 * Why a signup failed, as a fixed code: the page shows its text (in the request's language), so a
 * crafted URL cannot put words on it.
 */
export const FAILURE_REASONS = {
  get cancelled() {
    return m.whatsapp_failure_cancelled();
  },
  get state() {
    return m.whatsapp_failure_state();
  },
  get invalid() {
    return m.whatsapp_failure_invalid();
  },
  get expired() {
    return m.whatsapp_failure_expired();
  },
  get not_granted() {
    return m.whatsapp_failure_not_granted();
  },
  get taken() {
    return m.whatsapp_failure_taken();
  },
  get no_numbers() {
    return m.whatsapp_failure_no_numbers();
  },
  get register() {
    return m.whatsapp_failure_register();
  },
  get graph() {
    return m.whatsapp_failure_graph();
  },
  get network() {
    return m.whatsapp_failure_network();
  },
};

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
