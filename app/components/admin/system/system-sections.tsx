import type { DatabaseStats } from "~/.server/domains/admin/system/database-stats";
import type { ReplicaStatus } from "~/.server/infrastructure/db/replica";
import type { SystemSeries } from "~/.server/domains/admin/system/series";
import { bytes } from "~/components/admin/system/system-parts";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { BarChart, LineChart, SeriesTable } from "~/components/ui/chart";
import { Table } from "~/components/ui/table";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

// The System tab's sampled sections: the metrics charts, each instance's resources and the database's statistics.

/** The database server's own name, the same in every language. */
const POSTGRESQL = "PostgreSQL";

/** Requests, errors, the job queue and webhooks over the chosen range (`words` says it: "the last hour"...). */
export function MetricsSection({ series, words }: { series: SystemSeries; words: string }) {
  return (
    <section aria-labelledby="metrics-title">
      <h2 id="metrics-title" className="text-lg font-semibold text-slate-900">
        {m.admin_metrics_title({ range: words })}
      </h2>
      {series.empty ? (
        <p className="mt-1 text-sm text-slate-600">{m.admin_metrics_empty({ range: words })}</p>
      ) : (
        <p className="mt-1 text-sm text-slate-600">{m.admin_metrics_sampled()}</p>
      )}
      {/* Six charts over the same periods: their figures for screen readers in one table after them. */}
      <div className="mt-3 grid gap-4 lg:grid-cols-2">
        <Card padding="sm">
          <BarChart title={m.admin_metrics_requests()} data={series.requests} inSharedTable />
        </Card>
        <Card padding="sm">
          <LineChart title={m.admin_metrics_errors_chart()} data={series.errorRate} inSharedTable />
        </Card>
        <Card padding="sm">
          <LineChart title={m.admin_metrics_jobs_chart()} data={series.jobsReady} inSharedTable />
        </Card>
        <Card padding="sm">
          <LineChart title={m.admin_metrics_oldest_chart()} data={series.oldestJob} inSharedTable />
        </Card>
        <Card padding="sm">
          <BarChart title={m.admin_metrics_webhooks_chart()} data={series.webhooksReceived} inSharedTable />
        </Card>
        <Card padding="sm">
          <LineChart title={m.admin_metrics_lag_chart()} data={series.webhookLag} inSharedTable />
        </Card>
      </div>
      <SeriesTable
        caption={m.admin_metrics_title({ range: words })}
        labelHeader={m.admin_metrics_time()}
        columns={[
          { header: m.admin_metrics_requests(), data: series.requests },
          { header: m.admin_metrics_errors(), data: series.errorRate },
          { header: m.admin_metrics_jobs(), data: series.jobsReady },
          { header: m.admin_metrics_oldest(), data: series.oldestJob },
          { header: m.admin_metrics_webhooks(), data: series.webhooksReceived },
          { header: m.admin_metrics_lag(), data: series.webhookLag },
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
        {m.admin_resources_title()}
      </h2>
      {series.instances.length ? (
        <div className="mt-3 space-y-4">
          {series.instances.map((instance) => (
            <Card key={instance.id} padding="sm">
              <CardHeader level={3} title={`${instance.hostname} · ${m.admin_instance_process({ pid: instance.pid })}`} />
              <CardBody className="grid gap-4 md:grid-cols-3">
                <LineChart title={m.admin_resources_cpu_chart()} data={instance.cpu} height={140} inSharedTable />
                <LineChart title={m.admin_resources_memory_chart()} data={instance.memoryMb} height={140} inSharedTable />
                <LineChart title={m.admin_resources_loop_chart()} data={instance.loopDelay} height={140} inSharedTable />
              </CardBody>
              <SeriesTable
                caption={m.admin_resources_caption({ hostname: instance.hostname, pid: instance.pid })}
                labelHeader={m.admin_metrics_time()}
                columns={[
                  { header: "CPU (%)", data: instance.cpu },
                  { header: m.admin_resources_memory(), data: instance.memoryMb },
                  { header: m.admin_resources_loop(), data: instance.loopDelay },
                ]}
              />
            </Card>
          ))}
        </div>
      ) : (
        <p className="mt-1 text-sm text-slate-600">{m.admin_resources_empty({ range: words })}</p>
      )}
    </section>
  );
}

/** The database's engine, size, connections, largest tables and slowest statements. */
export function DatabaseSection({ database, replica }: { database: DatabaseStats; replica: ReplicaStatus | null }) {
  return (
    <section aria-labelledby="database-title">
      <h2 id="database-title" className="text-lg font-semibold text-slate-900">
        {m.admin_probe_service_database()}
      </h2>
      <div className="mt-3 grid gap-4 lg:grid-cols-2">
        <Card padding="sm">
          <dl className="grid grid-cols-2 gap-x-3 gap-y-1 text-sm">
            <dt className="text-slate-500">{m.admin_db_engine()}</dt>
            <dd className="text-right font-medium">
              {database.kind === "pglite" ? m.admin_db_pglite() : POSTGRESQL}
              {database.version ? ` ${database.version}` : ""}
            </dd>
            <dt className="text-slate-500">{m.admin_logs_column_size()}</dt>
            <dd className="text-right font-medium" data-testid="database-size">
              {bytes(database.sizeBytes)}
            </dd>
          </dl>
          <h3 className="mt-4 text-sm font-semibold text-slate-900">{m.admin_db_connections()}</h3>
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
          <ReplicaPart replica={replica} />
        </Card>
        <Card padding="none">
          <Table
            caption={m.admin_db_tables()}
            columns={[
              { key: "name", header: m.admin_db_table(), cell: (t) => <code className="text-sm">{t.name}</code> },
              { key: "size", header: m.admin_logs_column_size(), cell: (t) => bytes(t.totalBytes), align: "right" },
              {
                key: "rows",
                header: m.admin_db_rows(),
                cell: (t) => (t.rows === null ? m.admin_db_not_analysed() : formatNumber(t.rows)),
                align: "right",
                hideOnPhone: true,
              },
            ]}
            rows={database.tables}
            rowKey={(t) => t.name}
            empty={<p className="p-4 text-sm text-slate-600">{m.admin_db_tables_unreadable()}</p>}
          />
        </Card>
      </div>
      <Card padding="sm" className="mt-4">
        <h3 className="text-sm font-semibold text-slate-900">{m.admin_db_slowest()}</h3>
        {database.slowest ? (
          <ol className="mt-2 space-y-2 text-sm">
            {database.slowest.map((s, i) => (
              <li key={i}>
                <code className="block truncate text-xs" title={s.query}>
                  {s.query}
                </code>
                <span className="text-slate-600">{m.admin_db_slowest_line({ ms: String(s.meanMs), calls: formatNumber(s.calls) })}</span>
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

/** The read replica (decision 163): whether it serves the heavy reads, and its lag as this instance measured it. */
function ReplicaPart({ replica }: { replica: ReplicaStatus | null }) {
  if (!replica)
    return (
      <>
        <h3 className="mt-4 text-sm font-semibold text-slate-900">{m.admin_db_replica()}</h3>
        <p className="mt-1 text-sm text-slate-600" data-testid="replica-state">
          {m.admin_db_replica_none()}
        </p>
      </>
    );
  const state = {
    serving: m.admin_db_replica_serving(),
    lagging: m.admin_db_replica_lagging({ seconds: formatNumber(replica.maxLagMs / 1000) }),
    down: m.admin_db_replica_down(),
  }[replica.state];
  return (
    <>
      <h3 className="mt-4 text-sm font-semibold text-slate-900">{m.admin_db_replica()}</h3>
      <p className="mt-1 text-sm text-slate-700" data-testid="replica-state" data-state={replica.state}>
        {state}
      </p>
      {replica.lagMs !== null ? (
        <dl className="mt-1 grid grid-cols-2 gap-x-3 text-sm">
          <dt className="text-slate-500">{m.admin_db_replica_lag()}</dt>
          <dd className="text-right font-medium" data-testid="replica-lag">
            {m.admin_db_replica_lag_value({ seconds: formatNumber(Math.round(replica.lagMs / 100) / 10), size: bytes(replica.lagBytes) })}
          </dd>
        </dl>
      ) : null}
      <p className="mt-1 text-xs text-slate-500">{m.admin_db_replica_note()}</p>
    </>
  );
}
