import type { FaultQueue, SlowAnswers } from "../faults";
import type { CallLog } from "../call-log";
import type { RateLimit, RollingLimiter } from "./rate-limit";
import type { HubspotState } from "./state";

export interface ResolvedOptions {
  clientId: string;
  clientSecret: string;
  /** The app's numeric id (token info's `app_id`). */
  appId: number;
  publicPath: string;
  accessTtlMs: number;
  rateLimit: RateLimit;
  slowMs: number;
  now: () => number;
}

export interface HubspotContext {
  options: ResolvedOptions;
  state: HubspotState;
  faults: FaultQueue;
  slow: SlowAnswers;
  limiter: RollingLimiter;
  calls: CallLog;
}
