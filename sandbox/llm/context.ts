import type { Response } from "express";
import type { RequestLog, RequestRecord } from "./records";

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
}
