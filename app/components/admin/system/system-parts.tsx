import { Form, Link, useNavigation } from "react-router";
import type { AlertRow } from "~/.server/domains/admin/system/alerts";
import type { InstanceProbe, Probe } from "~/.server/domains/admin/system/probes";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { TextareaField } from "~/components/ui/field";
import type { Column } from "~/components/ui/table";
import { formatNumber, formatWhen } from "~/lib/dates";
import { SYSTEM_RANGES, type SystemRange } from "~/lib/system-ranges";

// The System tab's parts: the range picker, each service's and instance's card, and the alerts' table and Resolve form.
export const STATUS: Record<Probe["status"] | InstanceProbe["status"], { tone: BadgeTone; words: string }> = {
  up: { tone: "success", words: "Up" },
  degraded: { tone: "warning", words: "Degraded" },
  down: { tone: "danger", words: "Down" },
  off: { tone: "neutral", words: "Not configured" },
  stale: { tone: "danger", words: "Stale" },
};

export function bytes(n: number | null | undefined) {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—";
  if (n < 1024 * 1024) return `${formatNumber(Math.round(n / 1024))} KB`;
  if (n < 1024 * 1024 * 1024) return `${formatNumber(Math.round((n / 1024 / 1024) * 10) / 10)} MB`;
  return `${formatNumber(Math.round((n / 1024 / 1024 / 1024) * 100) / 100)} GB`;
}

export function since(seconds: number) {
  if (seconds < 90) return `${seconds} s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
  return `${Math.round(seconds / 3600)} h ago`;
}

export function RangeSelector({ range }: { range: SystemRange }) {
  return (
    <nav aria-label="Time range" className="inline-flex rounded-lg border border-slate-300 bg-white p-0.5">
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
  const status = STATUS[probe.status];
  return (
    <Card as="article" padding="sm" data-testid="service-card" aria-labelledby={`svc-${probe.service.replace(/\W+/g, "-")}`}>
      <div className="flex items-start justify-between gap-2">
        <h3 id={`svc-${probe.service.replace(/\W+/g, "-")}`} className="font-semibold text-slate-900">
          {probe.service}
        </h3>
        <Badge tone={status.tone}>{status.words}</Badge>
      </div>
      <p className="mt-2 text-sm text-slate-700">{probe.summary}</p>
      <dl className="mt-3 grid grid-cols-2 gap-x-3 gap-y-1 text-sm">
        {probe.latencyMs !== null ? (
          <>
            <dt className="text-slate-500">Latency</dt>
            <dd className="text-right font-medium text-slate-900">{probe.latencyMs} ms</dd>
          </>
        ) : null}
        {probe.figures.map((f) => (
          <div key={f.label} className="contents">
            <dt className="text-slate-500">{f.label}</dt>
            <dd className="truncate text-right font-medium text-slate-900" title={f.value}>
              {f.value}
            </dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}

export function InstanceCard({ instance }: { instance: InstanceProbe }) {
  const status = STATUS[instance.status];
  const r = instance.resources ?? {};
  return (
    <Card as="article" padding="sm" data-testid="instance-card" aria-label={`Instance ${instance.hostname} (process ${instance.pid})`}>
      <div className="flex items-start justify-between gap-2">
        <h3 className="font-semibold break-all text-slate-900">
          {instance.hostname} <span className="font-normal text-slate-500">· process {instance.pid}</span>
        </h3>
        <Badge tone={status.tone}>{status.words}</Badge>
      </div>
      <p className="mt-1 text-sm text-slate-600">
        Heartbeat {since(instance.secondsSince)}; running since {formatWhen(instance.startedAt)}
        {instance.version ? `; version ${instance.version}` : ""}.
      </p>
      <dl className="mt-3 grid grid-cols-2 gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-500">CPU</dt>
        <dd className="text-right font-medium">{r.cpuPercent ?? "—"}% of a core</dd>
        <dt className="text-slate-500">Memory (RSS)</dt>
        <dd className="text-right font-medium">{bytes(r.rssBytes)}</dd>
        <dt className="text-slate-500">Heap used</dt>
        <dd className="text-right font-medium">{bytes(r.heapUsedBytes)}</dd>
        <dt className="text-slate-500">Event-loop delay (p99)</dt>
        <dd className="text-right font-medium">{r.eventLoopP99Ms ?? "—"} ms</dd>
      </dl>
    </Card>
  );
}

export function ResolveForm({ alert, error }: { alert: AlertRow; error: string | null }) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("alertId") === alert.id;
  return (
    <Form method="post" preventScrollReset className="mt-3 space-y-2" aria-label={`Resolve: ${alert.title}`}>
      <input type="hidden" name="intent" value="resolve" />
      <input type="hidden" name="alertId" value={alert.id} />
      <TextareaField
        label="Resolution note"
        name="note"
        id={`note-${alert.id}`}
        required
        minLength={3}
        maxLength={500}
        rows={2}
        hint="What was done, for the audit log."
        errors={error ? [error] : undefined}
      />
      <Button type="submit" size="sm" disabled={busy}>
        {busy ? "Resolving…" : "Resolve"}
      </Button>
    </Form>
  );
}

export const ALERT_COLUMNS: Column<AlertRow>[] = [
  { key: "opened", header: "Opened", cell: (a) => <time dateTime={a.openedAt}>{formatWhen(a.openedAt)}</time> },
  { key: "rule", header: "Rule", cell: (a) => a.ruleWords, hideOnPhone: true },
  {
    key: "alert",
    header: "Alert",
    cell: (a) => (
      <>
        <span className="font-medium text-slate-900">{a.title}</span>
        {a.details ? <span className="block text-sm text-slate-600">{a.details}</span> : null}
      </>
    ),
  },
  {
    key: "level",
    header: "Level",
    cell: (a) => <Badge tone={a.level === "error" ? "danger" : "warning"}>{a.level === "error" ? "Error" : "Warning"}</Badge>,
  },
  {
    key: "status",
    header: "Status",
    cell: (a) =>
      a.resolvedAt ? (
        <span className="text-sm">
          Resolved <time dateTime={a.resolvedAt}>{formatWhen(a.resolvedAt)}</time>
          {a.resolvedByEmail ? ` by ${a.resolvedByEmail}` : " (the condition cleared)"}
          {a.resolution && a.resolvedByEmail ? <span className="block text-slate-600">“{a.resolution}”</span> : null}
        </span>
      ) : (
        <Badge tone="danger">Open</Badge>
      ),
  },
];
