import { REENGAGEMENT_MODES, type ReengagementMode, type StatusDelays } from "./types";

/**
 * The sending knobs read from the environment, for `npm run dev` and the standalone process: an
 * option given in code wins over them. Bad values throw, naming the variable.
 *
 * - META_SANDBOX_STATUS_DELAYS_MS: "sent,delivered,read" in ms after acceptance (e.g. "200,800,3000", "0,0,0").
 * - META_SANDBOX_THROUGHPUT: messages per second per number (0: no limit).
 * - META_SANDBOX_PAIR_RATE: 1 or 0 (the pair rate limit on or off).
 * - META_SANDBOX_REENGAGEMENT: async or sync (how 131047 outside the 24-hour window surfaces).
 */
export interface SendingEnv {
  statusDelaysMs?: StatusDelays;
  throughputPerSecond?: number;
  pairRateLimit?: boolean;
  reengagement?: ReengagementMode;
}

export const DEFAULT_STATUS_DELAYS: StatusDelays = { sent: 200, delivered: 800, read: 3000 };

export function sendingFromEnv(env: Record<string, string | undefined>): SendingEnv {
  const out: SendingEnv = {};
  const delays = env.META_SANDBOX_STATUS_DELAYS_MS?.trim();
  if (delays) {
    const parts = delays.split(",").map((p) => Number(p.trim()));
    if (parts.length !== 3 || parts.some((n) => !Number.isInteger(n) || n < 0 || n > 600_000))
      throw new Error('META_SANDBOX_STATUS_DELAYS_MS must be three whole numbers of ms, "sent,delivered,read", e.g. "200,800,3000".');
    out.statusDelaysMs = { sent: parts[0]!, delivered: parts[1]!, read: parts[2]! };
  }
  const throughput = env.META_SANDBOX_THROUGHPUT?.trim();
  if (throughput) {
    const n = Number(throughput);
    if (!Number.isInteger(n) || n < 0)
      throw new Error("META_SANDBOX_THROUGHPUT must be a whole number of messages per second (0: no limit).");
    out.throughputPerSecond = n;
  }
  const pair = env.META_SANDBOX_PAIR_RATE?.trim();
  if (pair) {
    if (!["0", "1", "true", "false"].includes(pair)) throw new Error("META_SANDBOX_PAIR_RATE must be 1 or 0.");
    out.pairRateLimit = pair === "1" || pair === "true";
  }
  const reengagement = env.META_SANDBOX_REENGAGEMENT?.trim();
  if (reengagement) {
    if (!(REENGAGEMENT_MODES as readonly string[]).includes(reengagement))
      throw new Error('META_SANDBOX_REENGAGEMENT must be "async" (accepted, then a failed status) or "sync" (400 at once).');
    out.reengagement = reengagement as ReengagementMode;
  }
  return out;
}
