import { Link } from "~/components/ui/link";
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
import { m } from "~/paraglide/messages";

const numberColumns = (): Column<AdminNumber>[] => [
  {
    key: "number",
    header: m.admin_whatsapp_column_number(),
    cell: (n) => (
      <>
        <span className="font-medium">{n.display}</span>
        {n.verifiedName ? <span className="block text-xs text-slate-500">{n.verifiedName}</span> : null}
      </>
    ),
  },
  { key: "id", header: m.admin_whatsapp_phone_number_id(), cell: (n) => <span className="font-mono text-xs">{n.phoneNumberId}</span> },
  { key: "quality", header: m.admin_whatsapp_column_quality(), cell: (n) => qualityWords(n.quality) },
  { key: "tier", header: m.admin_whatsapp_column_tier(), cell: (n) => tierWords(n.messagingLimit) },
  { key: "status", header: m.admin_whatsapp_meta_status(), cell: (n) => n.status ?? "—" },
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
          {m.admin_whatsapp_business_account()} <span className="font-mono text-sm">{account.wabaId}</span>
          <Badge tone={account.status === "connected" ? "success" : account.status === "disconnected" ? "neutral" : "warning"}>
            {ACCOUNT_STATUS_LABELS[account.status]}
          </Badge>
        </p>
      </div>
      <div className="flex flex-wrap gap-2">
        <ButtonLink to={showLogs ? `/admin/whatsapp/${account.id}` : "?view=logs#logs"} variant="secondary">
          {showLogs ? m.admin_whatsapp_hide_logs() : m.admin_whatsapp_view_logs()}
        </ButtonLink>
        <Link to={`/admin/users/${account.organizationId}`} className="self-center text-sm text-brand-700 underline">
          {m.admin_whatsapp_the_organisation()}
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
        <Notice tone="warning" title={m.admin_whatsapp_token_refused_title()}>
          {m.admin_whatsapp_token_refused_text({ refusal: account.tokenRefusal ?? m.admin_whatsapp_error_190() })}
        </Notice>
      ) : null}
      {account.reconnectReason ? (
        <Notice tone="warning" title={m.admin_whatsapp_reconnect_title()}>
          {m.admin_whatsapp_reconnect_text({ reason: account.reconnectReason })}
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
      <CardHeader title={m.admin_account()} />
      <SummaryList
        className="mt-3"
        items={[
          { label: m.admin_whatsapp_account_name(), value: account.name ?? "—" },
          { label: m.admin_messages_this_month(), value: formatNumber(account.messagesThisMonth) },
          {
            label: "Webhook",
            value: (
              <>
                <Badge tone={hook.tone}>{hook.label}</Badge>{" "}
                {account.lastWebhookAt
                  ? m.admin_whatsapp_last_received({ when: formatWhen(account.lastWebhookAt) })
                  : m.admin_whatsapp_nothing_received_yet()}
              </>
            ),
          },
          { label: m.admin_whatsapp_api_version(), value: account.apiVersion },
          { label: m.admin_whatsapp_connected_since(), value: formatWhen(account.connectedAt) },
          ...(account.disconnectedAt ? [{ label: m.admin_whatsapp_status_disconnected(), value: formatWhen(account.disconnectedAt) }] : []),
        ]}
      />
      <div className="mt-4">
        <Table
          caption={m.admin_whatsapp_phone_numbers()}
          showCaption
          columns={numberColumns()}
          rows={account.numbers}
          rowKey={(n) => n.phoneNumberId}
          empty={m.admin_whatsapp_no_number()}
        />
      </div>
    </Card>
  );
}
