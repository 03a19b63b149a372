import type { NextFunction, Request, Response } from "express";
import { noteRequest } from "../metrics/instance";
import { statementsOf } from "../db/statement-count";
import { log } from "../log";

/**
 * One log line per request as it finishes (its id, method, path, status, duration, statements, client IP),
 * fingerprinted assets aside, and the System tab's and /metrics's counters. The logger hides the
 * M-Pesa callback secrets in the path (log.ts).
 */
export function requestLog() {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      if (req.path.startsWith("/assets/")) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // The System tab's requests and 5xx per minute, and /metrics's counters.
      noteRequest(req.method, res.statusCode, ms);
      log().info(
        {
          requestId: res.locals.requestId as string | undefined,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
          db: statementsOf(res),
          ip: req.ip,
        },
        "request",
      );
    });
    next();
  };
}
