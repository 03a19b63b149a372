import type { Route } from "./+types/whatsapp-export";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { adminAccountsPage, readAccountFilters } from "~/.server/domains/admin/whatsapp/accounts";
import { streamedCsv } from "~/.server/domains/admin/csv-export";
import { ACCOUNT_STATUS_LABELS, qualityWords, tierWords } from "~/lib/admin-whatsapp";

/** The WhatsApp tab's table as CSV (Export Data), with the page's search, status filter and sort. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const scope = platformScope(current);
  const { filters } = readAccountFilters(args.url.searchParams);
  return streamedCsv(
    "whatsapp_accounts",
    [
      "Account ID",
      "Organisation ID",
      "Business",
      "Account name",
      "Numbers",
      "WABA ID",
      "Status",
      "Quality",
      "Messaging tier",
      "Messages this month",
      "Webhook subscribed",
      "Last webhook",
      "API version",
      "Connected since",
      "Disconnected at",
      "Reconnect reason",
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
          a.subscribed ? "yes" : "no",
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
