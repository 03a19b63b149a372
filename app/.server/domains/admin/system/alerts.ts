import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { READY_JOB } from "./figures";
import { m } from "~/paraglide/messages";
import { englishOf, words, type Message, type MessageKey, type Said } from "../../../infrastructure/words/said";
import { storedSentences } from "../../../infrastructure/words/stored";

/**
 * Alerts raised by rules (issue 19). The system monitor (a recurring job, once a minute across the
 * instances) evaluates every rule: a condition that holds opens its alert, or refreshes the one
 * already open (one open row per rule and key: the unique index); a condition that cleared
 * resolves its alert. An administrator may resolve one with a note; if the condition still holds,
 * the next evaluation opens a new alert (a resolved alert is history, never reopened).
 */
export const ALERT_RULES = {
  instanceMissing: "instance_missing",
  queueLag: "queue_lag",
  errorRate: "error_rate",
  webhookBacklog: "webhook_backlog",
  webhookFailures: "webhook_failures",
} as const;
export type AlertRule = (typeof ALERT_RULES)[keyof typeof ALERT_RULES];

/** An instance without a heartbeat for longer than this is missing (it beats every 15 s). */
export const INSTANCE_MISSING_SECONDS = 60;
/** A queue whose oldest ready job has waited longer than this is behind. */
export const QUEUE_LAG_SECONDS = 120;
/** The share of requests answered 5xx over the last 5 minutes above which the error-rate alert opens... */
export const ERROR_RATE_PERCENT = 5;
/** ...when at least this many requests were answered (three failures out of ten are not a trend). */
export const ERROR_RATE_MIN_REQUESTS = 20;
/** Webhook deliveries unprocessed for longer than this are a backlog: the workers are behind or stopped. */
export const WEBHOOK_BACKLOG_MINUTES = 5;

/**
 * Each rule's name as the console shows it, read in the request's language. The alerts' titles and
 * details are written by the monitor job, outside any request, and stored as written (English).
 */
export const RULE_WORDS: Readonly<Record<AlertRule, string>> = {
  get instance_missing() {
    return m.admin_rule_instance_missing();
  },
  get queue_lag() {
    return m.admin_rule_queue_lag();
  },
  get error_rate() {
    return m.admin_rule_error_rate();
  },
  get webhook_backlog() {
    return m.admin_rule_webhook_backlog();
  },
  get webhook_failures() {
    return m.admin_rule_webhook_failures();
  },
};

interface Finding {
  rule: AlertRule;
  key: string;
  level: "warning" | "error";
  title: string;
  details: string;
}

/** A message whose words differ for one: `one` when the count is 1. */
const counted = (count: number, one: MessageKey, other: MessageKey, inputs: Record<string, Said> = {}) =>
  words(count === 1 ? one : other, { count, ...inputs });

/** "2 minutes", "3 hours": how long, in the reader's words. */
function duration(seconds: number): Message {
  if (seconds < 120) return counted(Math.round(seconds), "admin_alert_text_seconds_one", "admin_alert_text_seconds");
  if (seconds < 7200) return counted(Math.round(seconds / 60), "admin_alert_text_minutes_one", "admin_alert_text_minutes");
  return counted(Math.round(seconds / 3600), "admin_alert_text_hours_one", "admin_alert_text_hours");
}

const DURATIONS = storedSentences(
  (
    [
      "admin_alert_text_seconds_one",
      "admin_alert_text_seconds",
      "admin_alert_text_minutes_one",
      "admin_alert_text_minutes",
      "admin_alert_text_hours_one",
      "admin_alert_text_hours",
    ] as const
  ).map((key) => [key, { count: "count" }] as const),
);

/**
 * The monitor writes its alerts outside any request and stores them in English; the console (its
 * System tab, export, bell and overview) says them in its reader's language by reading the English
 * back into these messages (decision 074). Names (hosts, queues) and ids are data.
 */
const ALERT_SENTENCES = storedSentences([
  ["admin_alert_text_instance_missing_title", { host: "data", pid: "data", duration: DURATIONS }],
  ["admin_alert_text_instance_missing_details", { id: "data", duration: DURATIONS }],
  ["admin_alert_text_queue_lag_title", { queue: "data", duration: DURATIONS }],
  ["admin_alert_text_queue_lag_details_one", { count: "count", queue: "data", seconds: "count" }],
  ["admin_alert_text_queue_lag_details", { count: "count", queue: "data", seconds: "count" }],
  ["admin_alert_text_error_rate_title", { percent: "data" }],
  ["admin_alert_text_error_rate_details_one", { errors: "count", requests: "count", limit: "count" }],
  ["admin_alert_text_error_rate_details", { errors: "count", requests: "count", limit: "count" }],
  ["admin_alert_text_webhook_backlog_title_one", { count: "count", minutes: "count" }],
  ["admin_alert_text_webhook_backlog_title", { count: "count", minutes: "count" }],
  ["admin_alert_text_webhook_backlog_details", { duration: DURATIONS }],
  ["admin_alert_text_webhook_failures_title_one", { count: "count" }],
  ["admin_alert_text_webhook_failures_title", { count: "count" }],
  ["admin_alert_text_webhook_failures_details"],
  ["admin_alert_text_condition_cleared"],
]);

/** An alert's stored title, details or resolution in the reader's language (an administrator's own note as written). */
export const alertInWords = (text: string) => ALERT_SENTENCES.say(text) ?? text;

/** What the monitor resolves an alert with when its condition cleared. */
const CONDITION_CLEARED = englishOf(words("admin_alert_text_condition_cleared"));

async function missingInstances(): Promise<Finding[]> {
  const rows = await queryRows<{ instance_id: string; hostname: string; pid: number; silent: number }>(
    db(),
    sql`
    select instance_id, hostname, pid, extract(epoch from now() - last_seen_at)::float8 as silent
    from instance_heartbeats where last_seen_at < now() - make_interval(secs => ${INSTANCE_MISSING_SECONDS})`,
  );
  return rows.map((r) => ({
    rule: ALERT_RULES.instanceMissing,
    key: r.instance_id,
    level: "error",
    title: englishOf(
      words("admin_alert_text_instance_missing_title", { host: r.hostname, pid: String(r.pid), duration: duration(Number(r.silent)) }),
    ),
    details: englishOf(words("admin_alert_text_instance_missing_details", { id: r.instance_id, duration: duration(Number(r.silent)) })),
  }));
}

async function laggingQueues(): Promise<Finding[]> {
  const rows = await queryRows<{ queue: string; ready: number; oldest: number }>(
    db(),
    sql`
    select queue, count(*)::int as ready, extract(epoch from now() - min(run_at))::float8 as oldest
    from jobs where ${READY_JOB} group by queue
    having min(run_at) < now() - make_interval(secs => ${QUEUE_LAG_SECONDS})`,
  );
  return rows.map((r) => ({
    rule: ALERT_RULES.queueLag,
    key: r.queue,
    level: Number(r.oldest) > QUEUE_LAG_SECONDS * 5 ? "error" : "warning",
    title: englishOf(words("admin_alert_text_queue_lag_title", { queue: r.queue, duration: duration(Number(r.oldest)) })),
    details: englishOf(
      counted(Number(r.ready), "admin_alert_text_queue_lag_details_one", "admin_alert_text_queue_lag_details", {
        queue: r.queue,
        seconds: QUEUE_LAG_SECONDS,
      }),
    ),
  }));
}

async function errorRate(): Promise<Finding[]> {
  const [row] = await queryRows<{ requests: number | null; errors: number | null }>(
    db(),
    sql`
    select sum(value) filter (where name = 'http_requests') as requests, sum(value) filter (where name = 'http_5xx') as errors
    from metric_samples where name in ('http_requests', 'http_5xx') and instance_id <> '' and at > now() - interval '5 minutes'`,
  );
  const requests = Number(row?.requests ?? 0);
  const errors = Number(row?.errors ?? 0);
  if (requests < ERROR_RATE_MIN_REQUESTS) return [];
  const percent = (errors / requests) * 100;
  if (percent <= ERROR_RATE_PERCENT) return [];
  return [
    {
      rule: ALERT_RULES.errorRate,
      key: "",
      level: "error",
      title: englishOf(words("admin_alert_text_error_rate_title", { percent: String(Math.round(percent * 10) / 10) })),
      details: englishOf(
        words(errors === 1 ? "admin_alert_text_error_rate_details_one" : "admin_alert_text_error_rate_details", {
          errors,
          requests,
          limit: ERROR_RATE_PERCENT,
        }),
      ),
    },
  ];
}

async function webhookProblems(): Promise<Finding[]> {
  const [row] = await queryRows<{ waiting: number; oldest: number | null; failed: number }>(
    db(),
    sql`
    select
      (select count(*) from webhook_events where processed_at is null
         and received_at < now() - make_interval(mins => ${WEBHOOK_BACKLOG_MINUTES}))::int as waiting,
      (select extract(epoch from now() - min(received_at))::float8 from webhook_events where processed_at is null) as oldest,
      (select count(*) from webhook_events where received_at > now() - interval '1 hour' and outcome = 'failed')::int as failed`,
  );
  const findings: Finding[] = [];
  const waiting = Number(row?.waiting ?? 0);
  if (waiting)
    findings.push({
      rule: ALERT_RULES.webhookBacklog,
      key: "",
      level: "error",
      title: englishOf(
        counted(waiting, "admin_alert_text_webhook_backlog_title_one", "admin_alert_text_webhook_backlog_title", {
          minutes: WEBHOOK_BACKLOG_MINUTES,
        }),
      ),
      details: englishOf(words("admin_alert_text_webhook_backlog_details", { duration: duration(Number(row?.oldest ?? 0)) })),
    });
  const failed = Number(row?.failed ?? 0);
  if (failed)
    findings.push({
      rule: ALERT_RULES.webhookFailures,
      key: "",
      level: "warning",
      title: englishOf(counted(failed, "admin_alert_text_webhook_failures_title_one", "admin_alert_text_webhook_failures_title")),
      details: englishOf(words("admin_alert_text_webhook_failures_details")),
    });
  return findings;
}

/**
 * Evaluates every rule and brings the open alerts in line: opened, refreshed, or resolved because the
 * condition cleared. Answers what is open after it.
 */
export async function evaluateAlertRules() {
  const findings = (await Promise.all([missingInstances(), laggingQueues(), errorRate(), webhookProblems()])).flat();
  await db().transaction(async (tx) => {
    for (const f of findings)
      await tx.execute(sql`
        insert into system_alerts (rule, key, level, title, details)
        values (${f.rule}, ${f.key}, ${f.level}, ${f.title}, ${f.details})
        on conflict (rule, key) where resolved_at is null
        do update set level = excluded.level, title = excluded.title, details = excluded.details, last_seen_at = now()`);
    const holding = findings.map((f) => `${f.rule}\n${f.key}`);
    await tx.execute(sql`
      update system_alerts set resolved_at = now(), resolution = ${CONDITION_CLEARED}
      where resolved_at is null and rule = any(${sql.param(Object.values(ALERT_RULES))}::text[])
        and not (rule || chr(10) || key = any(${sql.param(holding)}::text[]))`);
  });
  return findings.map(({ rule, key }) => ({ rule, key }));
}

export interface AlertRow {
  id: string;
  rule: string;
  ruleWords: string;
  key: string;
  level: "warning" | "error";
  title: string;
  details: string | null;
  openedAt: string;
  lastSeenAt: string;
  resolvedAt: string | null;
  resolvedByEmail: string | null;
  resolution: string | null;
}

const iso = (value: string | Date | null) => (value === null ? null : new Date(value).toISOString());

function alertRow(r: {
  id: string;
  rule: string;
  key: string;
  level: "warning" | "error";
  title: string;
  details: string | null;
  opened_at: string;
  last_seen_at: string;
  resolved_at: string | null;
  resolved_by_email: string | null;
  resolution: string | null;
}): AlertRow {
  return {
    id: r.id,
    rule: r.rule,
    ruleWords: Object.hasOwn(RULE_WORDS, r.rule) ? RULE_WORDS[r.rule as AlertRule] : r.rule,
    key: r.key,
    level: r.level,
    title: alertInWords(r.title),
    details: r.details === null ? null : alertInWords(r.details),
    openedAt: iso(r.opened_at)!,
    lastSeenAt: iso(r.last_seen_at)!,
    resolvedAt: iso(r.resolved_at),
    resolvedByEmail: r.resolved_by_email,
    resolution: r.resolution === null ? null : alertInWords(r.resolution),
  };
}

/** Open alerts, errors first then the newest: the console's bell and the System tab's top. */
export async function openAlerts(limit = 50): Promise<AlertRow[]> {
  const rows = await queryRows<Parameters<typeof alertRow>[0]>(
    db(),
    sql`
    select a.id, a.rule, a.key, a.level, a.title, a.details, a.opened_at, a.last_seen_at, a.resolved_at, null as resolved_by_email, a.resolution
    from system_alerts a where a.resolved_at is null
    order by (a.level = 'error') desc, a.opened_at desc, a.id limit ${limit}`,
  );
  return rows.map(alertRow);
}

/**
 * Alerts opened in the range or still open, newest first, a keyset page at a time (opened_at, id):
 * the System tab's list and its CSV export.
 */
export async function alertsInRange(options: { sinceHours: number; cursor?: { openedAt: string; id: string } | null; limit?: number }) {
  const limit = Math.min(options.limit ?? 50, 500);
  const after = options.cursor
    ? sql`and (a.opened_at, a.id) < (${options.cursor.openedAt}::timestamptz, ${options.cursor.id}::uuid)`
    : sql``;
  const rows = await queryRows<Parameters<typeof alertRow>[0]>(
    db(),
    sql`
    select a.id, a.rule, a.key, a.level, a.title, a.details, a.opened_at, a.last_seen_at, a.resolved_at, u.email as resolved_by_email, a.resolution
    from system_alerts a left join users u on u.id = a.resolved_by
    where (a.opened_at > now() - make_interval(hours => ${options.sinceHours}) or a.resolved_at is null) ${after}
    order by a.opened_at desc nulls last, a.id desc limit ${limit + 1}`,
  );
  const page = rows.slice(0, limit).map(alertRow);
  const last = page.at(-1);
  return { alerts: page, next: rows.length > limit && last ? { openedAt: last.openedAt, id: last.id } : null };
}

export type ResolveOutcome = { ok: true; alert: AlertRow } | { ok: false; status: 404 | 409; message: string };

/**
 * An administrator resolves an open alert with a note, in `tx` (the caller records the audit entry
 * in the same transaction). Resolving an instance's "missing" alert forgets that instance's stale
 * heartbeat: the administrator says it was retired, so it is not raised again.
 */
export async function resolveAlert(tx: Executor, adminId: string, alertId: string, note: string): Promise<ResolveOutcome> {
  const result = await queryRows<Parameters<typeof alertRow>[0]>(
    tx,
    sql`
    update system_alerts set resolved_at = now(), resolved_by = ${adminId}, resolution = ${note}
    where id = ${alertId} and resolved_at is null
    returning id, rule, key, level, title, details, opened_at, last_seen_at, resolved_at, null as resolved_by_email, resolution`,
  );
  const row = result[0];
  if (!row) {
    const exists = await queryRows<unknown>(tx, sql`select 1 from system_alerts where id = ${alertId}`);
    return exists.length
      ? { ok: false, status: 409, message: m.admin_alert_already_resolved() }
      : { ok: false, status: 404, message: m.admin_alert_not_found() };
  }
  if (row.rule === ALERT_RULES.instanceMissing)
    await tx.execute(sql`
      delete from instance_heartbeats where instance_id = ${row.key}
        and last_seen_at < now() - make_interval(secs => ${INSTANCE_MISSING_SECONDS})`);
  return { ok: true, alert: alertRow(row) };
}
