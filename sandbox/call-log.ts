import type { NextFunction, Request, Response } from "express";

export interface CallRecord {
  at: string;
  method: string;
  path: string;
  status?: number;
  /** The account called: a HubSpot portal, a Shopify shop, a Google user. */
  account?: string;
  /** What made it fail on purpose: a magic value, a queued fault or the rate limit. */
  fault?: string;
}

const KEEP = 200;

/** The last API calls the sandbox answered, newest first (the console and `control/calls`). */
export class CallLog {
  private records: CallRecord[] = [];

  constructor(private readonly now: () => number) {}

  /** Middleware: records each call once it has been answered. */
  recorder() {
    return (req: Request, res: Response, next: NextFunction) => {
      const record: CallRecord = { at: new Date(this.now()).toISOString(), method: req.method, path: req.originalUrl.split("?")[0]! };
      res.locals.callRecord = record;
      res.on("finish", () => {
        record.status = res.statusCode;
        this.records.unshift(record);
        if (this.records.length > KEEP) this.records.length = KEEP;
      });
      next();
    };
  }

  list(): CallRecord[] {
    return this.records.map((r) => ({ ...r }));
  }

  reset() {
    this.records = [];
  }
}

/** The record of the call being answered, for the handlers to note the portal or a fault. */
export const callRecordOf = (res: Response) => res.locals.callRecord as CallRecord | undefined;
