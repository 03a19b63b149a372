import { Form, useNavigation } from "react-router";
import { Link } from "~/components/ui/link";
import type { AlertRow } from "~/.server/domains/admin/system/alerts";
import type { InstanceProbe, Probe } from "~/.server/domains/admin/system/probes";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { TextareaField } from "~/components/ui/field";
import type { Column } from "~/components/ui/table";
import { formatNumber, formatWhen } from "~/lib/dates";
import { SYSTEM_RANGES, type SystemRange } from "~/lib/system-ranges";
import { m } from "~/paraglide/messages";

// The System tab's parts: the range picker, each service's and instance's card, and the alerts' table and Resolve form.
/** A service's or an instance's state: its badge's tone and words (in the request's language). */
export function statusOf(status: Probe["status"] | InstanceProbe["status"]): { tone: BadgeTone; words: string } {
  switch (status) {
    case "up":
      return { tone: "success", words: m.admin_probe_status_up() };
    case "degraded":
      return { tone: "warning", words: m.admin_probe_status_degraded() };
    case "down":
      return { tone: "danger", words: m.admin_probe_status_down() };
    case "off":
      return { tone: "neutral", words: m.admin_probe_status_off() };
    default:
      return { tone: "danger", words: m.admin_probe_status_stale() };
  }
}

export function bytes(n: number | null | undefined) {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—";
  if (n < 1024 * 1024) return m.admin_bytes_kb({ count: formatNumber(Math.round(n / 1024)) });
  if (n < 1024 * 1024 * 1024) return m.admin_bytes_mb({ count: formatNumber(Math.round((n / 1024 / 1024) * 10) / 10) });
  return m.admin_bytes_gb({ count: formatNumber(Math.round((n / 1024 / 1024 / 1024) * 100) / 100) });
}

export function since(seconds: number) {
  if (seconds < 90) return m.admin_since_seconds({ count: String(seconds) });
  if (seconds < 5400) return m.admin_since_minutes({ count: String(Math.round(seconds / 60)) });
  return m.admin_since_hours({ count: String(Math.round(seconds / 3600)) });
}

/** A probed service's name: the platform's own services in words, the others by their own names. */
function serviceWords(service: string) {
  switch (service) {
    case "Database":
      return m.admin_probe_service_database();
    case "Job queue":
      return m.admin_probe_service_queue();
    case "Webhook intake":
      return m.admin_probe_service_webhooks();
    default:
      return service;
  }
}

/** A card's figure: its label (English in the shared probe results) in words, and "none" too. */
const FIGURE_WORDS: Record<string, () => string> = {
  Ready: () => m.admin_probe_figure_ready(),
  "Oldest ready job": () => m.admin_probe_figure_oldest(),
  "Received in the last minute": () => m.admin_probe_figure_received(),
  Waiting: () => m.admin_probe_figure_waiting(),
  Lag: () => m.admin_probe_figure_lag(),
  Address: () => m.admin_probe_figure_address(),
  Environment: () => m.admin_probe_figure_environment(),
  Server: () => m.admin_probe_figure_server(),
};
const figureWords = (label: string) => (Object.hasOwn(FIGURE_WORDS, label) ? FIGURE_WORDS[label]!() : label);

export function RangeSelector({ range }: { range: SystemRange }) {
  return (
    <nav aria-label={m.admin_system_time_range()} className="inline-flex rounded-lg border border-slate-300 bg-white p-0.5">
      {(Object.keys(SYSTEM_RANGES) as SystemRange[]).map((key) => (
        <Link
          key={key}
          to={`?range=${key}`}
          preventScrollReset
          aria-current={key === range ? "page" : undefined}
          aria-label={SYSTEM_RANGES[key].label}
          className={`rounded-md px-3 py-1.5 text-sm font-medium ${key === range ? "bg-brand-700 text-white" : "text-slate-700 hover:bg-slate-100"}`}
        >
          {key}
        </Link>
      ))}
    </nav>
  );
}

export function ServiceCard({ probe }: { probe: Probe }) {
  const status = statusOf(probe.status);
  return (
    <Card as="article" padding="sm" data-testid="service-card" aria-labelledby={`svc-${probe.service.replace(/\W+/g, "-")}`}>
      <div className="flex items-start justify-between gap-2">
        <h3 id={`svc-${probe.service.replace(/\W+/g, "-")}`} className="font-semibold text-slate-900">
          {serviceWords(probe.service)}
        </h3>
        <Badge tone={status.tone}>{status.words}</Badge>
      </div>
      <p className="mt-2 text-sm text-slate-700">{probe.summary}</p>
      <dl className="mt-3 grid grid-cols-2 gap-x-3 gap-y-1 text-sm">
        {probe.latencyMs !== null ? (
          <>
            <dt className="text-slate-500">{m.admin_probe_latency()}</dt>
            <dd className="text-right font-medium text-slate-900">{m.admin_ms({ count: String(probe.latencyMs) })}</dd>
          </>
        ) : null}
        {probe.figures.map((f) => (
          <div key={f.label} className="contents">
            <dt className="text-slate-500">{figureWords(f.label)}</dt>
            <dd className="truncate text-right font-medium text-slate-900" title={f.value === "none" ? m.admin_probe_none() : f.value}>
              {f.value === "none" ? m.admin_probe_none() : f.value}
            </dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}

export function InstanceCard({ instance }: { instance: InstanceProbe }) {
  const status = statusOf(instance.status);
  const r = instance.resources ?? {};
  const figure = (n: number | undefined) => (n === undefined ? "—" : formatNumber(n));
  return (
    <Card
      as="article"
      padding="sm"
      data-testid="instance-card"
      aria-label={m.admin_instance_label({ hostname: instance.hostname, pid: instance.pid })}
    >
      <div className="flex items-start justify-between gap-2">
        <h3 className="font-semibold break-all text-slate-900">
          {instance.hostname} <span className="font-normal text-slate-500">· {m.admin_instance_process({ pid: instance.pid })}</span>
        </h3>
        <Badge tone={status.tone}>{status.words}</Badge>
      </div>
      <p className="mt-1 text-sm text-slate-600">
        {instance.version
          ? m.admin_instance_heartbeat_version({
              since: since(instance.secondsSince),
              when: formatWhen(instance.startedAt),
              version: instance.version,
            })
          : m.admin_instance_heartbeat({ since: since(instance.secondsSince), when: formatWhen(instance.startedAt) })}
      </p>
      <dl className="mt-3 grid grid-cols-2 gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-500">CPU</dt>
        <dd className="text-right font-medium">{m.admin_instance_cpu({ percent: figure(r.cpuPercent) })}</dd>
        <dt className="text-slate-500">{m.admin_instance_memory()}</dt>
        <dd className="text-right font-medium">{bytes(r.rssBytes)}</dd>
        <dt className="text-slate-500">{m.admin_instance_heap()}</dt>
        <dd className="text-right font-medium">{bytes(r.heapUsedBytes)}</dd>
        <dt className="text-slate-500">{m.admin_instance_loop_delay()}</dt>
        <dd className="text-right font-medium">{m.admin_ms({ count: figure(r.eventLoopP99Ms) })}</dd>
      </dl>
    </Card>
  );
}

export function ResolveForm({ alert, error }: { alert: AlertRow; error: string | null }) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("alertId") === alert.id;
  return (
    <Form method="post" preventScrollReset className="mt-3 space-y-2" aria-label={m.admin_resolve_label({ title: alert.title })}>
      <input type="hidden" name="intent" value="resolve" />
      <input type="hidden" name="alertId" value={alert.id} />
      <TextareaField
        label={m.admin_resolve_note()}
        name="note"
        id={`note-${alert.id}`}
        required
        minLength={3}
        maxLength={500}
        rows={2}
        hint={m.admin_resolve_hint()}
        errors={error ? [error] : undefined}
      />
      <Button type="submit" size="sm" disabled={busy}>
        {busy ? m.admin_resolving() : m.admin_resolve()}
      </Button>
    </Form>
  );
}

/** The alerts' table (its words in the request's language); an alert's title and details are stored as the monitor wrote them. */
export const alertColumns = (): Column<AlertRow>[] => [
  { key: "opened", header: m.admin_alerts_column_opened(), cell: (a) => <time dateTime={a.openedAt}>{formatWhen(a.openedAt)}</time> },
  { key: "rule", header: m.admin_alerts_column_rule(), cell: (a) => a.ruleWords, hideOnPhone: true },
  {
    key: "alert",
    header: m.admin_alerts_column_alert(),
    cell: (a) => (
      <>
        <span className="font-medium text-slate-900">{a.title}</span>
        {a.details ? <span className="block text-sm text-slate-600">{a.details}</span> : null}
      </>
    ),
  },
  {
    key: "level",
    header: m.admin_alerts_column_level(),
    cell: (a) => (
      <Badge tone={a.level === "error" ? "danger" : "warning"}>
        {a.level === "error" ? m.admin_level_error() : m.admin_level_warning()}
      </Badge>
    ),
  },
  {
    key: "status",
    header: m.admin_column_status(),
    cell: (a) =>
      a.resolvedAt ? (
        <span className="text-sm">
          {m.admin_alerts_resolved()} <time dateTime={a.resolvedAt}>{formatWhen(a.resolvedAt)}</time>{" "}
          {a.resolvedByEmail ? m.admin_by({ who: a.resolvedByEmail }) : m.admin_alerts_condition_cleared()}
          {a.resolution && a.resolvedByEmail ? (
            <span className="block text-slate-600">{m.admin_alerts_resolution_quote({ note: a.resolution })}</span>
          ) : null}
        </span>
      ) : (
        <Badge tone="danger">{m.admin_alerts_open()}</Badge>
      ),
  },
];
