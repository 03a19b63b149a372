import type { CallLog } from "../call-log";
import type { FaultQueue, SlowAnswers } from "../faults";
import type { GoogleState } from "./state";

export interface ResolvedOptions {
  clientId: string;
  clientSecret: string;
  publicPath: string;
  accessTtlMs: number;
  slowMs: number;
  now: () => number;
}

export interface GoogleContext {
  options: ResolvedOptions;
  state: GoogleState;
  faults: FaultQueue;
  slow: SlowAnswers;
  calls: CallLog;
}
