import type { Route } from "./+types/whatsapp-export";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { adminAccountsPage, readAccountFilters } from "~/.server/domains/admin/whatsapp/accounts";
import { streamedCsv } from "~/.server/domains/admin/csv-export";
import { ACCOUNT_STATUS_LABELS, qualityWords, tierWords } from "~/lib/admin-whatsapp";
import { m } from "~/paraglide/messages";

/** The WhatsApp tab's table as CSV (Export Data), with the page's search, status filter and sort. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const scope = platformScope(current);
  const { filters } = readAccountFilters(args.url.searchParams);
  return streamedCsv(
    "whatsapp_accounts",
    [
      m.admin_csv_account_id(),
      m.admin_csv_organisation_id(),
      m.admin_column_business(),
      m.admin_whatsapp_account_name(),
      m.admin_csv_numbers(),
      "WABA ID",
      m.admin_column_status(),
      m.admin_whatsapp_column_quality(),
      m.admin_whatsapp_column_tier(),
      m.admin_messages_this_month(),
      m.admin_csv_webhook_subscribed(),
      m.admin_csv_last_webhook(),
      m.admin_whatsapp_api_version(),
      m.admin_whatsapp_connected_since(),
      m.admin_csv_disconnected_at(),
      m.admin_csv_reconnect_reason(),
    ],
    async function* () {
      let after: string | null = null;
      do {
        const page = await adminAccountsPage(scope, filters, { after, limit: 200 });
        yield page.accounts.map((a) => [
          a.id,
          a.organizationId,
          a.business,
          a.name,
          a.numbers.map((n) => n.display).join("; "),
          a.wabaId,
          ACCOUNT_STATUS_LABELS[a.status],
          a.numbers.map((n) => qualityWords(n.quality)).join("; "),
          a.numbers.map((n) => tierWords(n.messagingLimit)).join("; "),
          a.messagesThisMonth,
          a.subscribed ? m.admin_csv_yes() : m.admin_csv_no(),
          a.lastWebhookAt,
          a.apiVersion,
          a.connectedAt,
          a.disconnectedAt,
          a.reconnectReason,
        ]);
        after = page.next;
      } while (after);
    },
  );
}
