import { href } from "react-router";
import { Link } from "~/components/ui/link";
import { formatNumber, formatWhen } from "~/lib/dates";
import { Badge } from "~/components/ui/badge";
import { statusWords } from "~/lib/campaign-live";
import { Pager, Table, type Column } from "~/components/ui/table";
import type { ReactNode } from "react";
import { m } from "~/paraglide/messages";

/** A campaign as the Campaigns tab and Broadcast History list it (the domain's CampaignView, as JSON). */
export interface CampaignRow {
  id: string;
  kind: "campaign" | "broadcast";
  name: string;
  status: string;
  template: { name: string; language: string };
  audienceLabel: string;
  counts: { queued: number; sent: number; delivered: number; read: number; replied: number; failed: number };
  scheduledFor: string | null;
  createdAt: string;
  finishedAt: string | null;
  approval: { declinedAt: string | null } | null;
}

/** The campaigns table with its figures; `ended` shows when each ended instead of its schedule. */
export function CampaignTable({
  rows,
  older,
  newer,
  searchParams,
  ended = false,
  empty,
}: {
  rows: CampaignRow[];
  older: string | null;
  newer: string | null;
  searchParams: URLSearchParams;
  ended?: boolean;
  empty: ReactNode;
}) {
  const figure = (key: keyof CampaignRow["counts"], header: string): Column<CampaignRow> => ({
    key,
    header,
    align: "right",
    hideOnPhone: key !== "sent",
    cell: (row) =>
      row.status === "draft" || row.status === "awaiting_approval" || (row.status === "scheduled" && !row.counts.sent)
        ? ""
        : formatNumber(row.counts[key]),
  });
  const columns: Column<CampaignRow>[] = [
    {
      key: "name",
      header: m.messaging_campaigns_col_name(),
      cell: (row) => (
        <Link to={href("/messaging/campaigns/:id", { id: row.id })} className="cell-link">
          {row.name}
          {row.kind === "broadcast" ? (
            <span className="block text-xs font-normal text-slate-500">{m.messaging_campaigns_quick_broadcast()}</span>
          ) : null}
        </Link>
      ),
    },
    {
      key: "status",
      header: m.messaging_campaigns_col_status(),
      cell: (row) => {
        const declined = row.approval?.declinedAt ? "declined" : null;
        return <Badge status={declined ?? row.status}>{statusWords(row.status, declined)}</Badge>;
      },
    },
    {
      key: "template",
      header: m.messaging_campaigns_col_template(),
      hideOnPhone: true,
      cell: (row) => `${row.template.name} (${row.template.language})`,
    },
    { key: "audience", header: m.messaging_campaigns_col_audience(), hideOnPhone: true, cell: (row) => row.audienceLabel },
    figure("sent", m.messaging_count_sent()),
    figure("delivered", m.messaging_count_delivered()),
    figure("read", m.messaging_count_read()),
    figure("replied", m.messaging_count_replied()),
    // Failed beside Sent on both lists: Meta accepts a message (Sent) and may fail it after (decision 114).
    figure("failed", m.messaging_count_failed()),
    ended
      ? {
          key: "ended",
          header: m.messaging_campaigns_col_ended(),
          hideOnPhone: true,
          cell: (row: CampaignRow) => (row.finishedAt ? formatWhen(row.finishedAt) : ""),
        }
      : {
          key: "scheduled",
          header: m.messaging_campaigns_col_scheduled_for(),
          hideOnPhone: true,
          cell: (row: CampaignRow) => (row.scheduledFor ? formatWhen(row.scheduledFor) : ""),
        },
    { key: "created", header: m.messaging_campaigns_col_created(), hideOnPhone: true, cell: (row) => formatWhen(row.createdAt) },
  ];
  return (
    <>
      <Table
        caption={ended ? m.messaging_broadcasts_table_caption() : m.messaging_campaigns_table_caption()}
        columns={columns}
        rows={rows}
        rowKey={(row) => row.id}
        empty={empty}
      />
      <div className="px-4 pb-4">
        <Pager
          searchParams={searchParams}
          newer={newer}
          older={older}
          label={ended ? m.messaging_broadcasts_pager_label() : m.messaging_campaigns_pager_label()}
        />
      </div>
    </>
  );
}
