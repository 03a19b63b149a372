import os from "node:os";
import { randomBytes } from "node:crypto";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { processState } from "../process-state";

/**
 * This process as the System tab sees it: its identity, its resources (CPU, memory, event-loop
 * delay), the requests it answered, and its Prometheus registry. Kept in processState, so the
 * server's request log and the route modules count into the same figures (development reloads
 * modules; a build evaluates them once).
 */

/** One reading of the process's resources since the reader's last one. */
export interface Resources {
  /** CPU time used over wall time, in percent of one core (200 = two cores busy). */
  cpuPercent: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** The 99th percentile of the event loop's delay, in milliseconds. */
  eventLoopP99Ms: number;
}

/** Reads CPU since its own last reading: the heartbeat and the minute's sample each keep one. */
class CpuMeter {
  private last = process.cpuUsage();
  private lastAt = process.hrtime.bigint();
  read() {
    const now = process.hrtime.bigint();
    const usage = process.cpuUsage(this.last);
    const wallMicros = Number(now - this.lastAt) / 1000;
    this.last = process.cpuUsage();
    this.lastAt = now;
    return wallMicros > 0 ? ((usage.user + usage.system) / wallMicros) * 100 : 0;
  }
}

interface InstanceState {
  id: string;
  hostname: string;
  startedAt: Date;
  version: string | null;
  heartbeatCpu: CpuMeter;
  minuteCpu: CpuMeter;
  loopDelay: IntervalHistogram;
  /** Requests answered, and those answered 5xx, since the last minute's sample. */
  minute: { requests: number; serverErrors: number };
  registry: Registry;
  requests: Counter<"method" | "status">;
  durations: Histogram<"method">;
  /** Histograms of steps timed inside the product (stepHistogram), by name. */
  steps: Map<string, Histogram>;
}

const state = processState<InstanceState>("admin-system-instance", () => {
  const hostname = os.hostname();
  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "jumbe_" });
  return {
    // Unique per process even when a host restarts a pid: the heartbeat's key.
    id: `${hostname}:${process.pid}:${randomBytes(3).toString("hex")}`,
    hostname,
    startedAt: new Date(),
    version: process.env.npm_package_version ?? null,
    heartbeatCpu: new CpuMeter(),
    minuteCpu: new CpuMeter(),
    loopDelay,
    minute: { requests: 0, serverErrors: 0 },
    registry,
    requests: new Counter({
      name: "jumbe_http_requests_total",
      help: "HTTP requests answered by this instance, by method and status class (2xx, 3xx, 4xx, 5xx).",
      labelNames: ["method", "status"] as const,
      registers: [registry],
    }),
    durations: new Histogram({
      name: "jumbe_http_request_duration_seconds",
      help: "Time to answer an HTTP request on this instance, in seconds.",
      labelNames: ["method"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    steps: new Map(),
  };
});

export function instanceIdentity() {
  return { id: state.id, hostname: state.hostname, pid: process.pid, startedAt: state.startedAt, version: state.version };
}

/** This instance's Prometheus registry: process metrics, requests; the platform gauges are added at scrape time. */
export function instanceRegistry() {
  return state.registry;
}

/**
 * A histogram of one step's time on this instance, in seconds (created once a process, kept on its
 * registry, so /metrics shows it and a benchmark can read its distribution). `buckets` are seconds.
 */
export function stepHistogram(name: string, help: string, buckets: number[]): Histogram {
  let histogram = state.steps.get(name);
  if (!histogram) {
    histogram = new Histogram({ name, help, buckets, registers: [state.registry] });
    state.steps.set(name, histogram);
  }
  return histogram;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Called once per answered request (the server's request log): the minute's counts and the Prometheus counters. */
export function noteRequest(method: string, status: number, ms: number) {
  state.minute.requests += 1;
  if (status >= 500) state.minute.serverErrors += 1;
  const m = METHODS.has(method) ? method : "OTHER";
  state.requests.inc({ method: m, status: `${Math.floor(status / 100)}xx` });
  state.durations.observe({ method: m }, ms / 1000);
}

function resources(cpu: CpuMeter): Resources {
  const memory = process.memoryUsage();
  const p99 = state.loopDelay.percentile(99);
  return {
    cpuPercent: Math.round(cpu.read() * 10) / 10,
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    eventLoopP99Ms: Number.isFinite(p99) ? Math.round((p99 / 1e6) * 10) / 10 : 0,
  };
}

/** The heartbeat's resources: since the last heartbeat (CPU), the event loop since the last minute's sample. */
export function heartbeatResources() {
  return resources(state.heartbeatCpu);
}

/** The minute's sample: resources since the last one, and the requests counted since; starts the next minute. */
export function takeMinuteSample() {
  const reading = resources(state.minuteCpu);
  state.loopDelay.reset();
  const { requests, serverErrors } = state.minute;
  state.minute = { requests: 0, serverErrors: 0 };
  return { ...reading, requests, serverErrors };
}
