import { useSearchParams } from "react-router";
import type { GraphCallView, WebhookView } from "~/.server/domains/admin/whatsapp/logs";
import { Card } from "~/components/ui/card";
import { Table, pageHref, type Column } from "~/components/ui/table";
import { TextLink } from "~/components/ui/text-link";
import { formatNumber, formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

const callColumns = (): Column<GraphCallView>[] => [
  { key: "at", header: m.admin_column_when(), cell: (c) => <time dateTime={c.at}>{formatWhen(c.at)}</time> },
  {
    key: "call",
    header: m.admin_logs_column_call(),
    cell: (c) => (
      <span className="font-mono text-xs">
        {c.method} {c.path}
      </span>
    ),
  },
  { key: "status", header: m.admin_logs_column_answer(), cell: (c) => (c.status === null ? m.admin_logs_no_answer() : `HTTP ${c.status}`) },
  { key: "duration", header: m.admin_logs_column_time(), align: "right", cell: (c) => `${formatNumber(c.durationMs)} ms` },
  { key: "error", header: m.admin_level_error(), cell: (c) => c.error ?? "—" },
  { key: "origin", header: m.admin_wallet_column_by(), cell: (c) => (c.origin === "admin" ? m.admin_audit_column_admin() : "Jumbe") },
];

const webhookColumns = (): Column<WebhookView>[] => [
  { key: "at", header: m.admin_logs_column_received(), cell: (w) => <time dateTime={w.at}>{formatWhen(w.at)}</time> },
  { key: "fields", header: m.admin_logs_column_changes(), cell: (w) => (w.fields.length ? w.fields.join(", ") : "—") },
  {
    key: "outcome",
    header: m.admin_billing_column_outcome(),
    // A stored outcome is Meta's or the worker's own code: shown as it is.
    cell: (w) => (w.processed ? (w.outcome ?? m.admin_logs_processed()) : m.admin_logs_waiting()),
  },
  {
    key: "size",
    header: m.admin_logs_column_size(),
    align: "right",
    cell: (w) => m.admin_logs_bytes({ count: formatNumber(w.bytes) }),
  },
];

type LogCursor = { calls?: string; hooks?: string };

/** View Logs: the account's Graph API calls and webhooks, each table paged with its own cursor in the URL. */
export function AccountLogs({
  calls,
  hooks,
}: {
  calls: { calls: GraphCallView[]; next?: string | null };
  hooks: { webhooks: WebhookView[]; next?: string | null };
}) {
  const [searchParams] = useSearchParams();
  const logsHref = (cursor: LogCursor) => {
    const next = new URLSearchParams(searchParams);
    next.set("view", "logs");
    if (cursor.calls) next.set("calls", cursor.calls);
    if (cursor.hooks) next.set("hooks", cursor.hooks);
    return `?${next.toString()}#logs`;
  };
  return (
    <section id="logs" aria-labelledby="logs-heading" className="space-y-4">
      <h2 id="logs-heading" className="text-lg font-semibold">
        {m.admin_logs_title()}
      </h2>
      <LogCard
        caption={m.admin_logs_calls_caption()}
        columns={callColumns()}
        rows={calls.calls}
        empty={m.admin_logs_calls_empty()}
        cursor="calls"
        next={calls.next}
        pages={{ label: m.admin_logs_calls_pages(), newest: m.admin_logs_calls_newest(), older: m.admin_logs_calls_older() }}
        logsHref={logsHref}
      />
      <LogCard
        caption={m.admin_logs_hooks_caption()}
        columns={webhookColumns()}
        rows={hooks.webhooks}
        empty={m.admin_logs_hooks_empty()}
        cursor="hooks"
        next={hooks.next}
        pages={{ label: m.admin_logs_hooks_pages(), newest: m.admin_logs_hooks_newest(), older: m.admin_logs_hooks_older() }}
        logsHref={logsHref}
      />
    </section>
  );
}

/** One of View Logs' tables, with its own newest / older links (its cursor in the URL beside the other's). */
function LogCard<T extends { id: string | number }>({
  caption,
  columns,
  rows,
  empty,
  cursor,
  next,
  pages,
  logsHref,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  empty: string;
  cursor: "calls" | "hooks";
  next: string | null | undefined;
  pages: { label: string; newest: string; older: string };
  logsHref: (cursor: LogCursor) => string;
}) {
  const [searchParams] = useSearchParams();
  const paged = !!searchParams.get(cursor);
  return (
    <Card padding="none">
      <div className="p-4">
        <Table caption={caption} showCaption columns={columns} rows={rows} rowKey={(r) => r.id} empty={empty} />
        {next || paged ? (
          <nav aria-label={pages.label} className="mt-3 flex gap-3 text-sm">
            {paged ? <TextLink to={pageHref(withoutKey(searchParams, cursor), {}) + "#logs"}>{pages.newest}</TextLink> : null}
            {next ? <TextLink to={logsHref({ [cursor]: next })}>{pages.older}</TextLink> : null}
          </nav>
        ) : null}
      </div>
    </Card>
  );
}

function withoutKey(searchParams: URLSearchParams, key: string) {
  const next = new URLSearchParams(searchParams);
  next.delete(key);
  return next;
}
