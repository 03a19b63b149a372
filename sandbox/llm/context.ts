import type { Response } from "express";
import type { RequestLog, RequestRecord } from "./records";
import type { Magic } from "./answer";

export interface ResolvedOptions {
  publicPath: string;
  /** The model ids served; any other answers 404 `model_not_found`. */
  models: readonly string[];
  /** How long a `magic:timeout` request is held before its connection is dropped. */
  holdMs: number;
  /** How many requests are remembered. */
  recordLimit: number;
  now: () => number;
}

/** A `magic:timeout` request the sandbox is holding open. */
export interface Hold {
  res: Response;
  timer: ReturnType<typeof setTimeout>;
  record: RequestRecord;
}

export interface LlmContext {
  options: ResolvedOptions;
  log: RequestLog;
  holds: Set<Hold>;
  /**
   * Magic values queued for the next chat completions, oldest first (`control/faults`): each call
   * answers as if its last user message held the next one, so a test can have a 503 and then an answer.
   */
  faults: Magic[];
}
