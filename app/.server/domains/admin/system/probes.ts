import net from "node:net";
import tls from "node:tls";
import { sql } from "drizzle-orm";
import { env } from "../../../infrastructure/config/env";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { processState } from "../../../infrastructure/process-state";
import { jobFigures, webhookFigures } from "./figures";
import { INSTANCE_MISSING_SECONDS, QUEUE_LAG_SECONDS, WEBHOOK_BACKLOG_MINUTES } from "./alerts";
import { m } from "~/paraglide/messages";

/**
 * The System tab's health cards: a real probe of each service, with its latency. Every probe has its
 * own short timeout, so a stopped service costs the page at most that timeout and shows as down with
 * the reason in words (a probe never throws). Each latency is that probe's own measurement, from its
 * own start to its own answer: the outside services (Graph, Daraja, SMTP) are probed in parallel,
 * each on its own connection; the database's three (Database, Job queue, Webhook intake) each run a
 * statement of their own, one after another, beside them, so none waits on a connection another
 * holds and none is timed with another's statement.
 *
 * Speed (the page's budget is 200 ms; a probe of a real outside service takes longer): the results
 * are kept in this process and shared by every page load (one probe run in flight at a time).
 * Under PROBE_CACHE_MS old they are shown as they are; up to PROBE_STALE_MS old they are shown while
 * a new run starts in the background (the next view has it); older, or none yet, the page waits for
 * a run. They are not stored in the database: a probe says whether *this* instance reaches the
 * service, and each instance answers for itself. The page shows when they were taken; "Probe again"
 * (?probe=now) waits for a new run.
 */
export const PROBE_TIMEOUT_MS = 2000;
export const PROBE_CACHE_MS = 15_000;
export const PROBE_STALE_MS = 5 * 60_000;

export type ProbeStatus = "up" | "degraded" | "down" | "off";

export interface Probe {
  service: string;
  status: ProbeStatus;
  /** How long the probe took, in ms (null when nothing was probed). */
  latencyMs: number | null;
  /** What it found, in words (English): the figures, or why it is down. */
  summary: string;
  /**
   * The same summary as a message of the catalogue and its inputs, for the page to say in the reader's
   * language (the results are shared by every page load, whatever its language); absent when the
   * summary is the service's or the network's own words.
   */
  words?: ProbeWords;
  /** Figures for the card (label, value). */
  figures: { label: string; value: string }[];
}

export interface InstanceProbe {
  id: string;
  hostname: string;
  pid: number;
  version: string | null;
  startedAt: string;
  lastSeenAt: string;
  secondsSince: number;
  status: "up" | "stale";
  resources: Record<string, number> | null;
}

export interface HealthReport {
  checkedAt: string;
  services: Probe[];
  instances: InstanceProbe[];
}

/** A probe's summary as one of the catalogue's messages (`admin_probe_*`) with its inputs. */
export interface ProbeWords {
  id: Extract<keyof typeof m, `admin_probe_${string}`>;
  values: Record<string, string>;
}

/** A summary in words: English in `summary` (logs, tests, the probes' cache), the message for the page in `words`. */
function said(id: ProbeWords["id"], values: Record<string, string> = {}): { summary: string; words: ProbeWords } {
  const message = m[id] as (inputs: Record<string, string>, options: { locale: "en" }) => string;
  return { summary: message(values, { locale: "en" }), words: { id, values } };
}

const elapsed = (started: bigint) => Math.max(0, Math.round(Number(process.hrtime.bigint() - started) / 1e6));

/** The mail server hung up before answering. */
class ClosedByServer extends Error {}

function reason(error: unknown): { summary: string; words?: ProbeWords } {
  if (error instanceof ClosedByServer) return said("admin_probe_smtp_closed");
  if (error instanceof Error) {
    if (error.name === "TimeoutError" || error.name === "AbortError")
      return said("admin_probe_timeout", { seconds: String(PROBE_TIMEOUT_MS / 1000) });
    const code = (error as { code?: string; cause?: { code?: string; message?: string } }).cause?.code ?? (error as { code?: string }).code;
    if (code === "ECONNREFUSED") return said("admin_probe_refused");
    if (code === "ENOTFOUND") return said("admin_probe_not_found");
    if (code === "ECONNRESET") return said("admin_probe_reset");
    return { summary: (error as { cause?: { message?: string } }).cause?.message ?? error.message };
  }
  return { summary: String(error) };
}

type ProbeRun = (signal: AbortSignal) => Promise<Omit<Probe, "service" | "latencyMs">>;

/** One service's probe: its card's name, whether it queries the database, and the probe itself. */
export interface ServiceProbe {
  service: string;
  database: boolean;
  run: ProbeRun | null;
  /** The card shown when there is nothing to probe (run is null). */
  off?: Omit<Probe, "service" | "latencyMs">;
}

/** Runs `probe` with a timeout, timing it alone; whatever it throws becomes a "down" card with the reason in words. */
async function timed(service: string, probe: ProbeRun): Promise<Probe> {
  const started = process.hrtime.bigint();
  const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  try {
    const result = await Promise.race([
      probe(signal),
      new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true })),
    ]);
    return { service, latencyMs: elapsed(started), ...result };
  } catch (error) {
    return { service, status: "down", latencyMs: elapsed(started), ...reason(error), figures: [] };
  }
}

const seconds = (n: number) => (n < 120 ? `${n} s` : n < 7200 ? `${Math.round(n / 60)} min` : `${Math.round(n / 3600)} h`);

const probeDatabase: ServiceProbe = {
  service: "Database",
  database: true,
  run: async () => {
    await queryRows(db(), sql`select 1`);
    return { status: "up", ...said("admin_probe_database_up"), figures: [] };
  },
};

/** The job queue: its own statement over the ready jobs. */
const probeJobs: ServiceProbe = {
  service: "Job queue",
  database: true,
  run: async () => {
    const f = await jobFigures();
    const behind = f.oldestReadySeconds > QUEUE_LAG_SECONDS;
    return {
      status: behind ? "degraded" : "up",
      ...(behind ? said("admin_probe_jobs_behind", { wait: seconds(f.oldestReadySeconds) }) : said("admin_probe_jobs_on_time")),
      figures: [
        { label: "Ready", value: String(f.jobsReady) },
        { label: "Oldest ready job", value: f.jobsReady ? seconds(f.oldestReadySeconds) : "none" },
      ],
    };
  },
};

/** The webhook intake: its own statement over the stored deliveries. */
const probeWebhooks: ServiceProbe = {
  service: "Webhook intake",
  database: true,
  run: async () => {
    const f = await webhookFigures();
    const behind = f.webhookLagSeconds > WEBHOOK_BACKLOG_MINUTES * 60;
    return {
      status: behind ? "degraded" : "up",
      ...(behind ? said("admin_probe_webhooks_behind", { wait: seconds(f.webhookLagSeconds) }) : said("admin_probe_webhooks_on_time")),
      figures: [
        { label: "Received in the last minute", value: String(f.webhooksLastMinute) },
        { label: "Waiting", value: String(f.webhookBacklog) },
        { label: "Lag", value: f.webhookBacklog ? seconds(f.webhookLagSeconds) : "none" },
      ],
    };
  },
};

/** Graph API: debug_token on the app's own token, a call Meta answers cheaply whatever the tenants. */
function probeGraph(): ServiceProbe {
  const config = env();
  return {
    service: "Graph API",
    database: false,
    run: async (signal) => {
      const appToken = `${config.META_APP_ID}|${config.META_APP_SECRET}`;
      const url = new URL(`${config.GRAPH_API_BASE_URL}/${config.GRAPH_API_VERSION}/debug_token`);
      url.searchParams.set("input_token", appToken);
      url.searchParams.set("access_token", appToken);
      const answer = await fetch(url, { signal, headers: { Accept: "application/json" } });
      const body = (await answer.json().catch(() => null)) as { data?: { is_valid?: boolean }; error?: { message?: string } } | null;
      const where = { label: "Address", value: `${config.GRAPH_API_BASE_URL.replace(/\?.*$/, "")} (${config.GRAPH_API_VERSION})` };
      if (answer.status >= 500 || !body)
        return { status: "down", ...said("admin_probe_graph_http", { status: String(answer.status) }), figures: [where] };
      if (body.error)
        return {
          status: "degraded",
          ...(body.error.message
            ? said("admin_probe_graph_refused", { reason: body.error.message })
            : said("admin_probe_graph_refused_no_reason")),
          figures: [where],
        };
      return { status: "up", ...said("admin_probe_graph_up"), figures: [where] };
    },
  };
}

/** M-Pesa: Daraja's OAuth token endpoint with the configured consumer key and secret. */
function probeMpesa(): ServiceProbe {
  const config = env();
  return {
    service: "M-Pesa (Daraja)",
    database: false,
    run: async (signal) => {
      const basic = Buffer.from(`${config.MPESA_CONSUMER_KEY}:${config.MPESA_CONSUMER_SECRET}`, "utf8").toString("base64");
      const answer = await fetch(`${config.MPESA_BASE_URL}/oauth/v1/generate?grant_type=client_credentials`, {
        signal,
        headers: { Authorization: `Basic ${basic}`, Accept: "application/json" },
      });
      const body = (await answer.json().catch(() => null)) as { access_token?: string; errorMessage?: string } | null;
      const where = { label: "Environment", value: config.MPESA_ENVIRONMENT };
      if (answer.status === 200 && body?.access_token) return { status: "up", ...said("admin_probe_mpesa_up"), figures: [where] };
      if (answer.status >= 500 || !body)
        return { status: "down", ...said("admin_probe_mpesa_http", { status: String(answer.status) }), figures: [where] };
      return {
        status: "down",
        ...(body.errorMessage
          ? said("admin_probe_mpesa_refused_reason", { status: String(answer.status), reason: body.errorMessage })
          : said("admin_probe_mpesa_refused", { status: String(answer.status) })),
        figures: [where],
      };
    },
  };
}

/** Reads one SMTP reply (its last line starts with the code and a space). */
function smtpReply(socket: net.Socket): Promise<{ code: number; text: string }> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString("latin1");
      const lines = buffer.split("\r\n").filter(Boolean);
      const last = lines.at(-1);
      if (buffer.endsWith("\r\n") && last && /^\d{3} /.test(last)) {
        cleanup();
        resolve({ code: Number(last.slice(0, 3)), text: last.slice(4) });
      }
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      cleanup();
      reject(new ClosedByServer("The mail server closed the connection."));
    };
    const cleanup = () => {
      socket.off("data", onData);
      socket.off("error", onError);
      socket.off("close", onClose);
    };
    socket.on("data", onData);
    socket.on("error", onError);
    socket.on("close", onClose);
  });
}

/** SMTP: connect, read the greeting, EHLO, QUIT (no mail, no login). Off when mail goes to the sandbox outbox. */
function probeSmtp(): ServiceProbe {
  const { SMTP_URL } = env();
  if (!SMTP_URL)
    return { service: "SMTP", database: false, run: null, off: { status: "off", ...said("admin_probe_smtp_off"), figures: [] } };
  const url = new URL(SMTP_URL);
  const secure = url.protocol === "smtps:";
  const port = Number(url.port || (secure ? 465 : 25));
  return {
    service: "SMTP",
    database: false,
    run: async (signal) => {
      const socket = secure
        ? tls.connect({ host: url.hostname, port, servername: url.hostname })
        : net.connect({ host: url.hostname, port });
      const abort = () => socket.destroy();
      signal.addEventListener("abort", abort, { once: true });
      try {
        const greeting = await smtpReply(socket);
        if (greeting.code !== 220)
          return {
            status: "down",
            ...said("admin_probe_smtp_greeting", { code: String(greeting.code), text: greeting.text }),
            figures: [],
          };
        socket.write("EHLO jumbe-probe\r\n");
        const hello = await smtpReply(socket);
        socket.write("QUIT\r\n");
        const where = { label: "Server", value: `${url.hostname}:${port}` };
        if (hello.code !== 250)
          return { status: "down", ...said("admin_probe_smtp_ehlo", { code: String(hello.code), text: hello.text }), figures: [where] };
        return { status: "up", ...said("admin_probe_smtp_up", { greeting: greeting.text.slice(0, 60) }), figures: [where] };
      } finally {
        signal.removeEventListener("abort", abort);
        socket.end();
        socket.destroy();
      }
    },
  };
}

async function instanceHealth(): Promise<InstanceProbe[]> {
  const rows = await queryRows<{
    instance_id: string;
    hostname: string;
    pid: number;
    version: string | null;
    started_at: string;
    last_seen_at: string;
    since: number;
    resources: Record<string, number> | string | null;
  }>(
    db(),
    sql`
    select instance_id, hostname, pid, version, started_at, last_seen_at, extract(epoch from now() - last_seen_at)::float8 as since, resources
    from instance_heartbeats order by hostname, started_at`,
  );
  return rows.map((r) => ({
    id: r.instance_id,
    hostname: r.hostname,
    pid: Number(r.pid),
    version: r.version,
    startedAt: new Date(r.started_at).toISOString(),
    lastSeenAt: new Date(r.last_seen_at).toISOString(),
    secondsSince: Math.max(0, Math.round(Number(r.since))),
    status: Number(r.since) > INSTANCE_MISSING_SECONDS ? "stale" : "up",
    resources: typeof r.resources === "string" ? (JSON.parse(r.resources) as Record<string, number>) : r.resources,
  }));
}

/** The System tab's probes, in the order of its cards (the configuration is read now). */
export function serviceProbes(): ServiceProbe[] {
  return [probeDatabase, probeJobs, probeWebhooks, probeGraph(), probeMpesa(), probeSmtp()];
}

/**
 * Every probe now, each timed alone: the database's one after another (a statement each, so none is
 * timed waiting for another's connection or answer), beside the outside services' in parallel.
 * `probes` is serviceProbes() unless a test hands its own.
 */
export async function probeServices(probes: ServiceProbe[] = serviceProbes()): Promise<HealthReport> {
  const results = new Map<ServiceProbe, Promise<Probe>>();
  const one = (p: ServiceProbe): Promise<Probe> =>
    p.run ? timed(p.service, p.run) : Promise.resolve({ service: p.service, latencyMs: null, ...p.off! });
  for (const p of probes.filter((p) => !p.database)) results.set(p, one(p));
  const databaseDone = (async () => {
    for (const p of probes.filter((p) => p.database)) {
      const result = one(p);
      results.set(p, result);
      await result;
    }
    return instanceHealth().catch(() => []);
  })();
  const instances = await databaseDone;
  const services = await Promise.all(probes.map((p) => results.get(p)!));
  return { checkedAt: new Date().toISOString(), services, instances };
}

const cache = processState("admin-system-probes", () => ({
  report: null as HealthReport | null,
  at: 0,
  inFlight: null as Promise<HealthReport> | null,
}));

function runProbes() {
  cache.inFlight ??= probeServices()
    .then((report) => {
      cache.report = report;
      cache.at = Date.now();
      return report;
    })
    .finally(() => {
      cache.inFlight = null;
    });
  return cache.inFlight;
}

/**
 * The probes' results: fresh from the cache; a little stale from the cache while a new run starts
 * behind it; otherwise (or `fresh`) a new run, waited for.
 */
export async function serviceHealth(options: { fresh?: boolean } = {}): Promise<HealthReport & { cached: boolean }> {
  const age = Date.now() - cache.at;
  if (!options.fresh && cache.report && age < PROBE_STALE_MS) {
    if (age >= PROBE_CACHE_MS) void runProbes().catch(() => undefined);
    return { ...cache.report, cached: true };
  }
  return { ...(await runProbes()), cached: false };
}

/** Forgets the cached probes (tests). */
export function clearProbeCache() {
  cache.report = null;
  cache.at = 0;
}
