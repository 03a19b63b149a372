import { tokenValue } from "./daraja-format";

const MAX_TOKENS = 10_000;

/** OAuth access tokens: issued for client credentials, valid until they expire or are revoked. */
export class TokenDesk {
  private expiries = new Map<string, number>();
  private requests = 0;

  constructor(private readonly options: { ttlSeconds: number; now: () => number }) {}

  /** Counts a token request (answered with a token or an error). */
  noteRequest() {
    this.requests++;
  }

  get requestCount() {
    return this.requests;
  }

  issue() {
    const now = this.options.now();
    this.prune(now);
    const token = tokenValue();
    this.expiries.set(token, now + this.options.ttlSeconds * 1000);
    return { token, expiresIn: this.options.ttlSeconds };
  }

  valid(token: string) {
    const expiry = this.expiries.get(token);
    return expiry !== undefined && expiry > this.options.now();
  }

  revokeAll() {
    this.expiries.clear();
  }

  reset() {
    this.expiries.clear();
    this.requests = 0;
  }

  private prune(now: number) {
    for (const [token, expiry] of this.expiries) if (expiry <= now) this.expiries.delete(token);
    while (this.expiries.size >= MAX_TOKENS) this.expiries.delete(this.expiries.keys().next().value!);
  }
}
