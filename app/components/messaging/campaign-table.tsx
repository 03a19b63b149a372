import { href, Link } from "react-router";
import { formatNumber, formatWhen } from "~/lib/dates";
import { Badge } from "~/components/ui/badge";
import { statusWords } from "~/lib/campaign-live";
import { Pager, Table, type Column } from "~/components/ui/table";
import type { ReactNode } from "react";

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
      header: "Name",
      cell: (row) => (
        <Link to={href("/messaging/campaigns/:id", { id: row.id })} className="cell-link">
          {row.name}
          {row.kind === "broadcast" ? <span className="block text-xs font-normal text-slate-500">Quick broadcast</span> : null}
        </Link>
      ),
    },
    {
      key: "status",
      header: "Status",
      cell: (row) => {
        const declined = row.approval?.declinedAt ? "declined" : null;
        return <Badge status={declined ?? row.status}>{statusWords(row.status, declined)}</Badge>;
      },
    },
    { key: "template", header: "Template", hideOnPhone: true, cell: (row) => `${row.template.name} (${row.template.language})` },
    { key: "audience", header: "Audience", hideOnPhone: true, cell: (row) => row.audienceLabel },
    figure("sent", "Sent"),
    figure("delivered", "Delivered"),
    figure("read", "Read"),
    figure("replied", "Replied"),
    ...(ended ? [figure("failed", "Failed")] : []),
    ended
      ? { key: "ended", header: "Ended", hideOnPhone: true, cell: (row: CampaignRow) => (row.finishedAt ? formatWhen(row.finishedAt) : "") }
      : {
          key: "scheduled",
          header: "Scheduled for",
          hideOnPhone: true,
          cell: (row: CampaignRow) => (row.scheduledFor ? formatWhen(row.scheduledFor) : ""),
        },
    { key: "created", header: "Created", hideOnPhone: true, cell: (row) => formatWhen(row.createdAt) },
  ];
  return (
    <>
      <Table caption={ended ? "Broadcast history" : "Campaigns"} columns={columns} rows={rows} rowKey={(row) => row.id} empty={empty} />
      <div className="px-4 pb-4">
        <Pager searchParams={searchParams} newer={newer} older={older} label={ended ? "Broadcast history pages" : "Campaign pages"} />
      </div>
    </>
  );
}
