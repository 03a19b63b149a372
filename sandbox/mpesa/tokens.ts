import { tokenValue } from "./daraja-format";

const MAX_TOKENS = 10_000;

/** OAuth access tokens: issued to one app (its consumer key) for client credentials, valid until they expire or are revoked. */
export class TokenDesk {
  private expiries = new Map<string, number>();
  private apps = new Map<string, string>();
  private requests = 0;

  constructor(private readonly options: { ttlSeconds: number; now: () => number }) {}

  /** Counts a token request (answered with a token or an error). */
  noteRequest() {
    this.requests++;
  }

  get requestCount() {
    return this.requests;
  }

  issue(consumerKey: string) {
    const now = this.options.now();
    this.prune(now);
    const token = tokenValue();
    this.expiries.set(token, now + this.options.ttlSeconds * 1000);
    this.apps.set(token, consumerKey);
    return { token, expiresIn: this.options.ttlSeconds };
  }

  valid(token: string) {
    return this.appOf(token) !== undefined;
  }

  /** The consumer key of the app a live token was issued to, or undefined. */
  appOf(token: string): string | undefined {
    const expiry = this.expiries.get(token);
    return expiry !== undefined && expiry > this.options.now() ? this.apps.get(token) : undefined;
  }

  revokeAll() {
    this.expiries.clear();
    this.apps.clear();
  }

  reset() {
    this.revokeAll();
    this.requests = 0;
  }

  private prune(now: number) {
    const drop = (token: string) => {
      this.expiries.delete(token);
      this.apps.delete(token);
    };
    for (const [token, expiry] of this.expiries) if (expiry <= now) drop(token);
    while (this.expiries.size >= MAX_TOKENS) drop(this.expiries.keys().next().value!);
  }
}
