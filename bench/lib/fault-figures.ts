// The figures of a fault run (bench/fault-runs.ts), from what it recorded: the prober's answers and
// the campaign's messages as the Meta sandbox and the database hold them. Pure, so they are tested
// on their own (fault-figures.test.ts).

/** One answer the prober got: which instance and probe (`series`), when sent and answered (ms). */
export interface Probe {
  series: string;
  sentAt: number;
  answeredAt: number;
  /** The HTTP status, or "error" for a refused connection or a request given up after its bound. */
  status: number | "error";
  retryAfter: string | null;
}

export interface ProbeFigures {
  /** Probes sent from the kill until every series answered 200 again (the restart when none failed). */
  requests: number;
  /** Those probes by status ("200", "503", "error", ...). */
  byStatus: Record<string, number>;
  /** 503s with a Retry-After of whole seconds, and 503s without one. */
  unavailableWithRetryAfter: number;
  unavailableWithoutRetryAfter: number;
  /** 5xx other than 503: each one a finding. */
  serverErrors: number;
  /** Per series, the same count by status. */
  bySeries: Record<string, Record<string, number>>;
  /** Seconds from the restart until every series answered 200 and kept doing so; null when one never did. */
  recoverySeconds: number | null;
  /** Series whose last probe was not a 200. */
  notRecovered: string[];
}

const isGood = (p: Probe) => p.status === 200;

/**
 * The answers around a fault: the component went down at `killedAt` and was started again at
 * `restartedAt` (ms, the probes' clock). A series recovered with the first 200 after its last
 * failure at or after the kill; the run recovered when its slowest series did.
 */
export function probeFigures(probes: Probe[], window: { killedAt: number; restartedAt: number }): ProbeFigures {
  const series = new Map<string, Probe[]>();
  for (const p of [...probes].sort((a, b) => a.sentAt - b.sentAt)) {
    const list = series.get(p.series) ?? [];
    list.push(p);
    series.set(p.series, list);
  }
  let recoveredAt = window.restartedAt;
  const notRecovered: string[] = [];
  for (const [name, list] of series) {
    let lastBad = -1;
    list.forEach((p, i) => {
      if (p.sentAt >= window.killedAt && !isGood(p)) lastBad = i;
    });
    if (lastBad < 0) continue;
    const next = list[lastBad + 1];
    if (!next) notRecovered.push(name);
    else recoveredAt = Math.max(recoveredAt, next.answeredAt);
  }
  const until = notRecovered.length ? Infinity : recoveredAt;
  const during = probes.filter((p) => p.sentAt >= window.killedAt && p.sentAt <= until);
  const byStatus: Record<string, number> = {};
  const bySeries: Record<string, Record<string, number>> = {};
  let unavailableWithRetryAfter = 0;
  let unavailableWithoutRetryAfter = 0;
  let serverErrors = 0;
  for (const p of during) {
    const key = String(p.status);
    byStatus[key] = (byStatus[key] ?? 0) + 1;
    const own = (bySeries[p.series] ??= {});
    own[key] = (own[key] ?? 0) + 1;
    if (p.status === 503) {
      if (p.retryAfter && /^\d+$/.test(p.retryAfter)) unavailableWithRetryAfter++;
      else unavailableWithoutRetryAfter++;
    } else if (typeof p.status === "number" && p.status >= 500) serverErrors++;
  }
  return {
    requests: during.length,
    byStatus,
    unavailableWithRetryAfter,
    unavailableWithoutRetryAfter,
    serverErrors,
    bySeries,
    recoverySeconds: notRecovered.length ? null : Math.max(0, recoveredAt - window.restartedAt) / 1000,
    notRecovered,
  };
}

/** A message as the Meta sandbox recorded it (GET control/messages). */
export interface SandboxSend {
  wamid: string;
  waId: string;
}

/** A campaign message as the database holds it. */
export interface StoredSend {
  phone: string;
  wamid: string | null;
  status: string;
}

export interface DeliveryFigures {
  audience: number;
  /** People Meta got exactly one message for. */
  once: number;
  /** People Meta got none for, and people it got more than one for (with how many). */
  lost: string[];
  twice: { waId: string; copies: number }[];
  /** Numbers Meta got a message for that are not in the audience. */
  strangers: string[];
  /** Rows in the database, people with more than one, rows whose status is not final. */
  stored: number;
  storedTwice: string[];
  notFinal: { phone: string; status: string }[];
  /** Rows whose wamid Meta never gave (or none at all), and Meta's messages no row names. */
  storedUnknownToMeta: string[];
  metaUnknownToStore: string[];
}

const digits = (phone: string) => phone.replace(/\D/g, "");

/** Every person of `audience` got one message, no one two, and every row is final and names Meta's message. */
export function deliveryFigures(input: {
  audience: string[];
  sandbox: SandboxSend[];
  stored: StoredSend[];
  finalStatuses: readonly string[];
}): DeliveryFigures {
  const audience = new Set(input.audience.map(digits));
  const copies = new Map<string, number>();
  for (const m of input.sandbox) copies.set(m.waId, (copies.get(m.waId) ?? 0) + 1);
  const rows = new Map<string, number>();
  for (const r of input.stored) rows.set(digits(r.phone), (rows.get(digits(r.phone)) ?? 0) + 1);
  const metaIds = new Set(input.sandbox.map((m) => m.wamid));
  const storedIds = new Set(input.stored.map((r) => r.wamid).filter((w): w is string => !!w));
  return {
    audience: audience.size,
    once: [...audience].filter((p) => copies.get(p) === 1).length,
    lost: [...audience].filter((p) => !copies.has(p)),
    twice: [...copies].filter(([waId, n]) => n > 1 && audience.has(waId)).map(([waId, n]) => ({ waId, copies: n })),
    strangers: [...copies.keys()].filter((waId) => !audience.has(waId)),
    stored: input.stored.length,
    storedTwice: [...rows].filter(([, n]) => n > 1).map(([phone]) => phone),
    notFinal: input.stored.filter((r) => !input.finalStatuses.includes(r.status)).map(({ phone, status }) => ({ phone, status })),
    storedUnknownToMeta: input.stored.filter((r) => !r.wamid || !metaIds.has(r.wamid)).map((r) => r.phone),
    metaUnknownToStore: [...metaIds].filter((w) => !storedIds.has(w)),
  };
}

/** Whether a delivery check found nothing wrong. */
export const deliveryClean = (d: DeliveryFigures) =>
  d.once === d.audience &&
  d.stored === d.audience &&
  !d.lost.length &&
  !d.twice.length &&
  !d.strangers.length &&
  !d.storedTwice.length &&
  !d.notFinal.length &&
  !d.storedUnknownToMeta.length &&
  !d.metaUnknownToStore.length;

export interface SendTimeline {
  /** Seconds from Meta's first acceptance to its last. */
  seconds: number;
  /** The longest stretch with no acceptance (s), and when it began, in seconds from the first. */
  longestGap: number;
  longestGapFrom: number;
  /** Seconds from the restart to Meta's first acceptance after it (null: none after it, or no restart). */
  resumedAfter: number | null;
}

/** When Meta accepted the campaign's messages (ms), around a component's restart. */
export function sendTimeline(acceptedAt: number[], restartedAt: number | null): SendTimeline {
  const times = [...acceptedAt].sort((a, b) => a - b);
  if (!times.length) return { seconds: 0, longestGap: 0, longestGapFrom: 0, resumedAfter: null };
  let longestGap = 0;
  let longestGapFrom = 0;
  for (let i = 1; i < times.length; i++)
    if (times[i]! - times[i - 1]! > longestGap) {
      longestGap = times[i]! - times[i - 1]!;
      longestGapFrom = times[i - 1]! - times[0]!;
    }
  const after = restartedAt === null ? undefined : times.find((t) => t >= restartedAt);
  return {
    seconds: (times.at(-1)! - times[0]!) / 1000,
    longestGap: longestGap / 1000,
    longestGapFrom: longestGapFrom / 1000,
    resumedAfter: after === undefined ? null : (after - restartedAt!) / 1000,
  };
}
