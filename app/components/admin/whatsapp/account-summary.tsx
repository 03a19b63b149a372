import { Link } from "react-router";
import { Badge } from "~/components/ui/badge";
import { ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Name } from "~/components/ui/name";
import { Notice } from "~/components/ui/notice";
import { PageTitle } from "~/components/ui/page-title";
import { SummaryList } from "~/components/ui/summary";
import { Table, type Column } from "~/components/ui/table";
import { formatNumber, formatWhen } from "~/lib/dates";
import { ACCOUNT_STATUS_LABELS, qualityWords, tierWords, webhookWords, type AdminAccountRow, type AdminNumber } from "~/lib/admin-whatsapp";

const NUMBER_COLUMNS: Column<AdminNumber>[] = [
  {
    key: "number",
    header: "Number",
    cell: (n) => (
      <>
        <span className="font-medium">{n.display}</span>
        {n.verifiedName ? <span className="block text-xs text-slate-500">{n.verifiedName}</span> : null}
      </>
    ),
  },
  { key: "id", header: "Phone number ID", cell: (n) => <span className="font-mono text-xs">{n.phoneNumberId}</span> },
  { key: "quality", header: "Quality", cell: (n) => qualityWords(n.quality) },
  { key: "tier", header: "Messaging tier", cell: (n) => tierWords(n.messagingLimit) },
  { key: "status", header: "Meta status", cell: (n) => n.status ?? "—" },
];

/** The account's business, WABA id and status, with View Logs and the link to its organisation. */
export function AccountHeading({ account, showLogs }: { account: AdminAccountRow; showLogs: boolean }) {
  return (
    <div className="flex flex-wrap items-start justify-between gap-3">
      <div>
        <PageTitle>
          <Name>{account.business}</Name>
        </PageTitle>
        <p className="mt-1 flex flex-wrap items-center gap-2 text-slate-600">
          WhatsApp Business Account <span className="font-mono text-sm">{account.wabaId}</span>
          <Badge tone={account.status === "connected" ? "success" : account.status === "disconnected" ? "neutral" : "warning"}>
            {ACCOUNT_STATUS_LABELS[account.status]}
          </Badge>
        </p>
      </div>
      <div className="flex flex-wrap gap-2">
        <ButtonLink to={showLogs ? `/admin/whatsapp/${account.id}` : "?view=logs#logs"} variant="secondary">
          {showLogs ? "Hide logs" : "View Logs"}
        </ButtonLink>
        <Link to={`/admin/users/${account.organizationId}`} className="self-center text-sm text-brand-700 underline">
          The organisation
        </Link>
      </div>
    </div>
  );
}

/** Why sending waits: Meta refused the token, or an administrator asked for reconnection. */
export function AccountNotices({ account }: { account: AdminAccountRow }) {
  return (
    <>
      {account.status === "token_refused" ? (
        <Notice tone="warning" title="Meta refused the stored token">
          {account.tokenRefusal ?? "Error 190"}. Sending waits until the organisation connects the account again.
        </Notice>
      ) : null}
      {account.reconnectReason ? (
        <Notice tone="warning" title="Reconnection requested">
          The organisation is asked to connect this account again. Reason: {account.reconnectReason}
        </Notice>
      ) : null}
    </>
  );
}

/** The account's details, webhook health and phone numbers. */
export function AccountCard({ account, now }: { account: AdminAccountRow; now: number }) {
  const hook = webhookWords(account.subscribed, account.lastWebhookAt, now);
  return (
    <Card>
      <CardHeader title="Account" />
      <SummaryList
        className="mt-3"
        items={[
          { label: "Account name", value: account.name ?? "—" },
          { label: "Messages this month", value: formatNumber(account.messagesThisMonth) },
          {
            label: "Webhook",
            value: (
              <>
                <Badge tone={hook.tone}>{hook.label}</Badge>{" "}
                {account.lastWebhookAt ? `last received ${formatWhen(account.lastWebhookAt)}` : "nothing received yet"}
              </>
            ),
          },
          { label: "API version", value: account.apiVersion },
          { label: "Connected since", value: formatWhen(account.connectedAt) },
          ...(account.disconnectedAt ? [{ label: "Disconnected", value: formatWhen(account.disconnectedAt) }] : []),
        ]}
      />
      <div className="mt-4">
        <Table
          caption="Phone numbers"
          showCaption
          columns={NUMBER_COLUMNS}
          rows={account.numbers}
          rowKey={(n) => n.phoneNumberId}
          empty="No number on this account."
        />
      </div>
    </Card>
  );
}
