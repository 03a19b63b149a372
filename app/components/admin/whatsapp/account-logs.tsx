import { useSearchParams } from "react-router";
import type { GraphCallView, WebhookView } from "~/.server/domains/admin/whatsapp/logs";
import { Card } from "~/components/ui/card";
import { Table, pageHref, type Column } from "~/components/ui/table";
import { TextLink } from "~/components/ui/text-link";
import { formatNumber, formatWhen } from "~/lib/dates";

const CALL_COLUMNS: Column<GraphCallView>[] = [
  { key: "at", header: "When", cell: (c) => <time dateTime={c.at}>{formatWhen(c.at)}</time> },
  {
    key: "call",
    header: "Call",
    cell: (c) => (
      <span className="font-mono text-xs">
        {c.method} {c.path}
      </span>
    ),
  },
  { key: "status", header: "Answer", cell: (c) => (c.status === null ? "No answer" : `HTTP ${c.status}`) },
  { key: "duration", header: "Time", align: "right", cell: (c) => `${formatNumber(c.durationMs)} ms` },
  { key: "error", header: "Error", cell: (c) => c.error ?? "—" },
  { key: "origin", header: "By", cell: (c) => (c.origin === "admin" ? "Administrator" : "Jumbe") },
];

const WEBHOOK_COLUMNS: Column<WebhookView>[] = [
  { key: "at", header: "Received", cell: (w) => <time dateTime={w.at}>{formatWhen(w.at)}</time> },
  { key: "fields", header: "Changes", cell: (w) => (w.fields.length ? w.fields.join(", ") : "—") },
  {
    key: "outcome",
    header: "Outcome",
    cell: (w) => (w.processed ? (w.outcome ?? "processed") : "Waiting to be processed"),
  },
  { key: "size", header: "Size", align: "right", cell: (w) => `${formatNumber(w.bytes)} bytes` },
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
        Logs
      </h2>
      <LogCard
        caption="Graph API calls, newest first"
        columns={CALL_COLUMNS}
        rows={calls.calls}
        empty="No Graph API call recorded in the last 30 days."
        cursor="calls"
        next={calls.next}
        pages={{ label: "Graph call pages", newest: "Newest calls", older: "Older calls" }}
        logsHref={logsHref}
      />
      <LogCard
        caption="Webhooks received, newest first"
        columns={WEBHOOK_COLUMNS}
        rows={hooks.webhooks}
        empty="No webhook received for this WhatsApp Business Account in the last 30 days."
        cursor="hooks"
        next={hooks.next}
        pages={{ label: "Webhook pages", newest: "Newest webhooks", older: "Older webhooks" }}
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
