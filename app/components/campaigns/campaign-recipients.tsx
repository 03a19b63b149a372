import { Form, useSearchParams } from "react-router";
import { RESULT_CHOICES, type RecipientResult } from "~/lib/campaign-live";
import { formatWhen } from "~/lib/dates";
import { Download } from "~/components/ui/icons";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { FilterSelect } from "~/components/ui/field";
import { Pager, Table, type Column } from "~/components/ui/table";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";
import type { Recipient, RecipientsPage } from "./campaign-page-types";

// Functions, not words: each is said in the request's language when the table is drawn.
const RESULT_LABELS: Record<RecipientResult, () => string> = {
  waiting: m.messaging_result_waiting,
  sent: m.messaging_result_sent,
  delivered: m.messaging_result_delivered,
  read: m.messaging_result_read,
  replied: m.messaging_result_replied,
  failed: m.messaging_result_failed,
  left_out: m.messaging_result_left_out,
};

const columns = (): Column<Recipient>[] => [
  {
    key: "to",
    header: m.messaging_recipients_col_recipient(),
    cell: (r) => (
      <span>
        <span className="tabular-nums">{r.phone ?? m.messaging_no_number()}</span>
        {r.name ? <span className="block text-xs text-slate-500">{r.name}</span> : null}
      </span>
    ),
  },
  {
    key: "result",
    header: m.messaging_recipients_col_result(),
    cell: (r) => (
      <span className="flex flex-wrap gap-1">
        <Badge status={r.result === "left_out" ? "archived" : r.result === "waiting" ? "queued" : r.result}>
          {RESULT_LABELS[r.result]()}
        </Badge>
        {r.replied ? <Badge tone="info">{m.messaging_result_replied()}</Badge> : null}
      </span>
    ),
  },
  { key: "reason", header: m.messaging_recipients_col_reason(), hideOnPhone: true, cell: (r) => r.reason ?? "" },
  {
    key: "when",
    header: m.messaging_recipients_col_last_update(),
    hideOnPhone: true,
    cell: (r) => {
      const at = r.repliedAt ?? r.readAt ?? r.deliveredAt ?? r.sentAt;
      return at ? formatWhen(at) : "";
    },
  },
];

/** Who it went to and what became of it: filtered by result, a page at a time, and the results as CSV. */
export function CampaignRecipients({
  recipients,
  result,
  page,
  counted,
}: {
  recipients: RecipientsPage;
  result: RecipientResult | null;
  page: string;
  /** False until it starts: the recipients are counted then. */
  counted: boolean;
}) {
  const [search] = useSearchParams();
  const csv = `${page}/results.csv${result ? `?result=${result}` : ""}`;
  return (
    <Card padding="none">
      <div className="flex flex-wrap items-end justify-between gap-3 px-4 pt-4">
        <h2 className="font-semibold text-slate-900">{m.messaging_recipients_title()}</h2>
        <div className="flex flex-wrap items-end gap-3">
          <Form method="get" className="flex items-end gap-2" aria-label={m.messaging_recipients_filter_label()}>
            <FilterSelect
              name="result"
              label={m.messaging_recipients_col_result()}
              value={result ?? ""}
              all={m.messaging_recipients_filter_all()}
              options={RESULT_CHOICES.map((r) => [r, RESULT_LABELS[r]()])}
            />
            <Button type="submit" variant="secondary" size="sm" className="mb-0.5">
              {m.messaging_recipients_show()}
            </Button>
          </Form>
          <a
            href={csv}
            download
            className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm font-semibold text-slate-800 shadow-sm hover:bg-slate-50"
          >
            <Download className="size-4" aria-hidden /> {m.messaging_recipients_download()}
          </a>
        </div>
      </div>
      <Table
        caption={m.messaging_recipients_title()}
        columns={columns()}
        rows={recipients.recipients}
        rowKey={(r) => r.id}
        empty={
          !counted ? (
            <>{m.messaging_recipients_counted_at_start()}</>
          ) : result ? (
            <>
              {m.messaging_recipients_none_with_result()}{" "}
              <TextLink to={page} weight="semibold">
                {m.messaging_recipients_show_everyone()}
              </TextLink>
            </>
          ) : (
            m.messaging_recipients_none()
          )
        }
      />
      <div className="px-4 pb-4">
        <Pager
          searchParams={search}
          older={recipients.next === null ? null : String(recipients.next)}
          label={m.messaging_recipients_pager_label()}
        />
      </div>
    </Card>
  );
}
