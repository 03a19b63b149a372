import { GRAPH_STEPS, type CallRecord, type GraphFault, type GraphFaultError, type GraphStep } from "./types";

interface ActiveFault {
  step: GraphStep;
  error: GraphFaultError;
  remaining: number;
}

/** Injected Graph errors: the next N calls of a step answer with the error, before any state change. */
export class FaultTable {
  private faults: ActiveFault[] = [];

  add(fault: GraphFault) {
    if (!fault || typeof fault !== "object") throw new Error("A fault needs step and error.");
    if (!GRAPH_STEPS.includes(fault.step)) throw new Error(`step must be one of ${GRAPH_STEPS.join(", ")}.`);
    const error = fault.error;
    if (!error || typeof error !== "object" || !Number.isInteger(error.code)) throw new Error("error.code must be a whole number.");
    if (error.status !== undefined && (!Number.isInteger(error.status) || error.status < 100 || error.status > 599))
      throw new Error("error.status must be an HTTP status (100-599).");
    if (error.subcode !== undefined && !Number.isInteger(error.subcode)) throw new Error("error.subcode must be a whole number.");
    if (error.message !== undefined && typeof error.message !== "string") throw new Error("error.message must be text.");
    if (error.type !== undefined && typeof error.type !== "string") throw new Error("error.type must be text.");
    if (error.isTransient !== undefined && typeof error.isTransient !== "boolean")
      throw new Error("error.isTransient must be true or false.");
    const times = fault.times ?? 1;
    if (!(times === Infinity || (Number.isInteger(times) && times >= 1)))
      throw new Error("times must be a positive whole number or Infinity.");
    this.faults.push({ step: fault.step, error: { ...error }, remaining: times });
  }

  /** Takes one use of the oldest fault for the step, if any. */
  take(step: GraphStep | undefined): GraphFaultError | undefined {
    if (!step) return undefined;
    const index = this.faults.findIndex((f) => f.step === step);
    if (index < 0) return undefined;
    const fault = this.faults[index]!;
    fault.remaining--;
    if (fault.remaining <= 0) this.faults.splice(index, 1);
    return fault.error;
  }

  clear() {
    this.faults = [];
  }

  list() {
    return this.faults.map((f) => ({
      step: f.step,
      error: { ...f.error },
      remaining: f.remaining === Infinity ? "Infinity" : f.remaining,
    }));
  }
}

const KEEP_CALLS = 1000;

/** Graph calls received, newest last. */
export class CallLog {
  private records: CallRecord[] = [];

  add(record: CallRecord) {
    this.records.push(record);
    if (this.records.length > KEEP_CALLS) this.records.splice(0, this.records.length - KEEP_CALLS);
  }

  list(): CallRecord[] {
    return this.records.map((r) => ({ ...r }));
  }

  clear() {
    this.records = [];
  }
}

const SECRET_PARAMS = new Set(["access_token", "client_secret", "input_token", "code", "pin", "verify_token"]);

/** The request path and query with secret values replaced, for logs and the console. */
export function redactPath(pathname: string, search: string): string {
  if (!search || search === "?") return pathname;
  const params = new URLSearchParams(search);
  const parts: string[] = [];
  for (const [key, value] of params)
    parts.push(`${encodeURIComponent(key)}=${SECRET_PARAMS.has(key) ? "[redacted]" : encodeURIComponent(value)}`);
  return parts.length ? `${pathname}?${parts.join("&")}` : pathname;
}
