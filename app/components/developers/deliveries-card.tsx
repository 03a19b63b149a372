import { Form } from "react-router";
import type { DeliveryRow } from "~/.server/domains/webhooks-out/manage";
import { RefreshCw, Send } from "~/components/ui/icons";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Table, type Column } from "~/components/ui/table";
import { formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

interface DeliveriesCardProps {
  deliveries: DeliveryRow[];
  /** Whether a webhook URL was ever saved. */
  configured: boolean;
  disabled: boolean;
}

/** The last 20 deliveries of the webhook, with Refresh, Send test event and Redeliver. */
export function DeliveriesCard({ deliveries, configured, disabled }: DeliveriesCardProps) {
  return (
    <Card aria-labelledby="deliveries-heading">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 id="deliveries-heading" className="text-lg font-semibold">
            {m.developers_deliveries_heading()}
          </h2>
          <p className="mt-1 text-sm text-slate-600">{m.developers_deliveries_intro()}</p>
        </div>
        {configured ? (
          <div className="flex flex-wrap gap-2">
            {/* A GET form: it loads the page again even when the URL is the same one. */}
            <Form method="get" action="/developers">
              <Button type="submit" size="sm" variant="secondary">
                <RefreshCw className="size-4" aria-hidden /> {m.developers_deliveries_refresh()}
              </Button>
            </Form>
            {disabled ? null : (
              <Form method="post">
                <input type="hidden" name="intent" value="webhook-test" />
                <Button type="submit" size="sm" variant="secondary">
                  <Send className="size-4" aria-hidden /> {m.developers_deliveries_test()}
                </Button>
              </Form>
            )}
          </div>
        ) : null}
      </div>
      <div className="mt-4">
        <Table
          caption={m.developers_deliveries_caption()}
          columns={deliveryColumns(!disabled)}
          rows={deliveries}
          rowKey={(row) => row.id}
          empty={configured ? m.developers_deliveries_empty() : m.developers_deliveries_unconfigured()}
        />
      </div>
    </Card>
  );
}

/** A delivery's state as a badge, in the page's language. */
function deliveryBadge(row: DeliveryRow): { tone: "success" | "warning" | "danger"; label: string } {
  if (row.status === "pending" && !row.attempts) return { tone: "warning", label: m.developers_delivery_queued() };
  if (row.status === "delivered") return { tone: "success", label: m.developers_delivery_delivered() };
  return row.status === "pending"
    ? { tone: "warning", label: m.developers_delivery_retrying() }
    : { tone: "danger", label: m.developers_delivery_failed() };
}

/** A delivery's last answer in words: the HTTP status, or why there was none. */
function deliveryResult(row: DeliveryRow) {
  if (row.status === "delivered") return `HTTP ${row.responseStatus}`;
  if (!row.attempts && !row.error) return m.developers_delivery_waiting();
  if (row.responseStatus !== null && row.error && !row.error.startsWith("HTTP")) return `HTTP ${row.responseStatus}: ${row.error}`;
  return row.error ?? `HTTP ${row.responseStatus}`;
}

function DeliveryResult({ row }: { row: DeliveryRow }) {
  const badge = deliveryBadge(row);
  return (
    <div className="min-w-0" data-testid="delivery-result">
      <Badge tone={badge.tone}>{badge.label}</Badge> <span className="text-slate-700">{deliveryResult(row)}</span>
      {row.responseBody ? (
        <details className="mt-1">
          <summary className="cursor-pointer text-xs text-slate-500">{m.developers_delivery_answer()}</summary>
          <pre className="mt-1 max-w-md overflow-x-auto rounded bg-slate-50 p-2 text-xs whitespace-pre-wrap">{row.responseBody}</pre>
        </details>
      ) : null}
    </div>
  );
}

function RedeliverButton({ row }: { row: DeliveryRow }) {
  return (
    <Form method="post">
      <input type="hidden" name="intent" value="webhook-redeliver" />
      <input type="hidden" name="delivery" value={row.id} />
      <Button
        type="submit"
        size="sm"
        variant="secondary"

        aria-label={m.developers_redeliver_label({ event: row.eventType, when: formatWhen(row.createdAt) })}
      >
        {m.developers_redeliver()}
      </Button>
    </Form>
  );
}

function deliveryColumns(sendable: boolean): Column<DeliveryRow>[] {
  return [
    { key: "event", header: m.developers_column_event(), cell: (row) => <code className="text-xs">{row.eventType}</code> },
    { key: "time", header: m.developers_column_time(), cell: (row) => formatWhen(row.createdAt), hideOnPhone: true },
    { key: "result", header: m.developers_column_result(), cell: (row) => <DeliveryResult row={row} /> },
    {
      key: "attempts",
      header: m.developers_column_attempts(),
      cell: (row) => <span data-testid="delivery-attempts">{row.attempts}</span>,
      align: "right",
    },
    {
      key: "next",
      header: m.developers_column_next_retry(),
      cell: (row) => (row.nextAttemptAt && row.attempts ? formatWhen(row.nextAttemptAt) : "—"),
      hideOnPhone: true,
    },
    {
      key: "actions",
      header: <span className="sr-only">{m.developers_column_actions()}</span>,
      cell: (row) => (sendable ? <RedeliverButton row={row} /> : null),
      align: "right",
    },
  ];
}
