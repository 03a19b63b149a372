/** What became of a chat completion request, as the console and `control/requests` show it. */
export type Outcome =
  | "answer"
  | "handover"
  | "no_answer"
  | "after_tool"
  | "truncated"
  | "rate_limited"
  | "quota"
  | "server_error"
  | "overloaded"
  | "error_body"
  | "timeout"
  | "filtered"
  | "unauthorised"
  | "invalid_request"
  | "unknown_model"
  | "too_large";

export interface RequestRecord {
  /** 1, 2, 3… since the sandbox started (or was reset). */
  index: number;
  at: string;
  model: string | null;
  /** The last user message, cut at 500 characters. */
  lastUserMessage: string | null;
  outcome: Outcome;
  /** The HTTP status answered; null while a `magic:timeout` request is held open. */
  status: number | null;
  /** A word more: the passage answered (`K3`), the tool's arguments, the error's code, how a held request ended. */
  detail: string | null;
  promptTokens: number;
  completionTokens: number;
}

/** The last `limit` requests, in memory. */
export class RequestLog {
  private records: RequestRecord[] = [];
  private next = 1;

  constructor(
    private readonly now: () => number,
    private readonly limit = 200,
  ) {}

  add(input: Omit<RequestRecord, "index" | "at">): RequestRecord {
    const record: RequestRecord = {
      index: this.next++,
      at: new Date(this.now()).toISOString(),
      ...input,
      lastUserMessage: input.lastUserMessage === null ? null : input.lastUserMessage.slice(0, 500),
    };
    this.records.push(record);
    if (this.records.length > this.limit) this.records.splice(0, this.records.length - this.limit);
    return record;
  }

  /** Newest first; copies. */
  list(): RequestRecord[] {
    return this.records
      .slice()
      .reverse()
      .map((record) => ({ ...record }));
  }

  reset() {
    this.records = [];
    this.next = 1;
  }
}
