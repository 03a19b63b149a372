import type { DatabaseStats } from "~/.server/domains/admin/system/database-stats";
import type { SystemSeries } from "~/.server/domains/admin/system/series";
import { bytes } from "~/components/admin/system/system-parts";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { BarChart, LineChart, SeriesTable } from "~/components/ui/chart";
import { Table } from "~/components/ui/table";
import { formatNumber } from "~/lib/dates";

// The System tab's sampled sections: the metrics charts, each instance's resources and the database's statistics.

/** Requests, errors, the job queue and webhooks over the chosen range (`words` says it: "the last hour"...). */
export function MetricsSection({ series, words }: { series: SystemSeries; words: string }) {
  return (
    <section aria-labelledby="metrics-title">
      <h2 id="metrics-title" className="text-lg font-semibold text-slate-900">
        Metrics over {words}
      </h2>
      {series.empty ? (
        <p className="mt-1 text-sm text-slate-600">No samples in {words} yet: each instance samples every minute.</p>
      ) : (
        <p className="mt-1 text-sm text-slate-600">Sampled every minute, Nairobi time; kept 30 days.</p>
      )}
      {/* Six charts over the same periods: their figures for screen readers in one table after them. */}
      <div className="mt-3 grid gap-4 lg:grid-cols-2">
        <Card padding="sm">
          <BarChart title="Requests answered" data={series.requests} inSharedTable />
        </Card>
        <Card padding="sm">
          <LineChart title="Server errors (share of requests answered 5xx, %)" data={series.errorRate} inSharedTable />
        </Card>
        <Card padding="sm">
          <LineChart title="Job queue depth (ready jobs, peak)" data={series.jobsReady} inSharedTable />
        </Card>
        <Card padding="sm">
          <LineChart title="Oldest ready job (seconds waited, peak)" data={series.oldestJob} inSharedTable />
        </Card>
        <Card padding="sm">
          <BarChart title="Webhook deliveries received" data={series.webhooksReceived} inSharedTable />
        </Card>
        <Card padding="sm">
          <LineChart title="Webhook lag (seconds the oldest waited, peak)" data={series.webhookLag} inSharedTable />
        </Card>
      </div>
      <SeriesTable
        caption={`Metrics over ${words}`}
        labelHeader="Time"
        columns={[
          { header: "Requests answered", data: series.requests },
          { header: "Server errors (%)", data: series.errorRate },
          { header: "Ready jobs (peak)", data: series.jobsReady },
          { header: "Oldest ready job (s, peak)", data: series.oldestJob },
          { header: "Webhook deliveries", data: series.webhooksReceived },
          { header: "Webhook lag (s, peak)", data: series.webhookLag },
        ]}
      />
    </section>
  );
}

/** CPU, memory and event-loop delay of each instance that sampled in the range. */
export function ResourcesSection({ series, words }: { series: SystemSeries; words: string }) {
  return (
    <section aria-labelledby="resources-title">
      <h2 id="resources-title" className="text-lg font-semibold text-slate-900">
        Resources per instance
      </h2>
      {series.instances.length ? (
        <div className="mt-3 space-y-4">
          {series.instances.map((instance) => (
            <Card key={instance.id} padding="sm">
              <CardHeader level={3} title={`${instance.hostname} · process ${instance.pid}`} />
              <CardBody className="grid gap-4 md:grid-cols-3">
                <LineChart title="CPU (% of a core, average)" data={instance.cpu} height={140} inSharedTable />
                <LineChart title="Memory (RSS, MB, average)" data={instance.memoryMb} height={140} inSharedTable />
                <LineChart title="Event-loop delay (p99, ms, peak)" data={instance.loopDelay} height={140} inSharedTable />
              </CardBody>
              <SeriesTable
                caption={`Resources of ${instance.hostname}, process ${instance.pid}`}
                labelHeader="Time"
                columns={[
                  { header: "CPU (%)", data: instance.cpu },
                  { header: "Memory (MB)", data: instance.memoryMb },
                  { header: "Event-loop delay (ms)", data: instance.loopDelay },
                ]}
              />
            </Card>
          ))}
        </div>
      ) : (
        <p className="mt-1 text-sm text-slate-600">No instance sampled its resources in {words}.</p>
      )}
    </section>
  );
}

/** The database's engine, size, connections, largest tables and slowest statements. */
export function DatabaseSection({ database }: { database: DatabaseStats }) {
  return (
    <section aria-labelledby="database-title">
      <h2 id="database-title" className="text-lg font-semibold text-slate-900">
        Database
      </h2>
      <div className="mt-3 grid gap-4 lg:grid-cols-2">
        <Card padding="sm">
          <dl className="grid grid-cols-2 gap-x-3 gap-y-1 text-sm">
            <dt className="text-slate-500">Engine</dt>
            <dd className="text-right font-medium">
              {database.kind === "pglite" ? "PGlite (embedded)" : "PostgreSQL"}
              {database.version ? ` ${database.version}` : ""}
            </dd>
            <dt className="text-slate-500">Size</dt>
            <dd className="text-right font-medium" data-testid="database-size">
              {bytes(database.sizeBytes)}
            </dd>
          </dl>
          <h3 className="mt-4 text-sm font-semibold text-slate-900">Connections</h3>
          {database.connections ? (
            <ul className="mt-1 text-sm">
              {database.connections.map((c) => (
                <li key={c.state} className="flex justify-between">
                  <span className="text-slate-600">{c.state}</span>
                  <span className="font-medium">{c.count}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="mt-1 text-sm text-slate-600">{database.connectionsNote}</p>
          )}
        </Card>
        <Card padding="none">
          <Table
            caption="Largest tables"
            columns={[
              { key: "name", header: "Table", cell: (t) => <code className="text-sm">{t.name}</code> },
              { key: "size", header: "Size", cell: (t) => bytes(t.totalBytes), align: "right" },
              {
                key: "rows",
                header: "Rows (estimate)",
                cell: (t) => (t.rows === null ? "not analysed yet" : formatNumber(t.rows)),
                align: "right",
                hideOnPhone: true,
              },
            ]}
            rows={database.tables}
            rowKey={(t) => t.name}
            empty={<p className="p-4 text-sm text-slate-600">The table sizes could not be read.</p>}
          />
        </Card>
      </div>
      <Card padding="sm" className="mt-4">
        <h3 className="text-sm font-semibold text-slate-900">Slowest statements</h3>
        {database.slowest ? (
          <ol className="mt-2 space-y-2 text-sm">
            {database.slowest.map((s, i) => (
              <li key={i}>
                <code className="block truncate text-xs" title={s.query}>
                  {s.query}
                </code>
                <span className="text-slate-600">
                  {s.meanMs} ms on average over {formatNumber(s.calls)} calls
                </span>
              </li>
            ))}
          </ol>
        ) : (
          <p className="mt-1 text-sm text-slate-600" data-testid="slowest-note">
            {database.slowestNote}
          </p>
        )}
      </Card>
    </section>
  );
}
