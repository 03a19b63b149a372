import { href } from "react-router";
import type { EventView } from "~/.server/domains/integrations/shopify/mappings";
import { Card } from "~/components/ui/card";
import { Badge } from "~/components/ui/badge";
import { formatWhen } from "~/lib/dates";
import { eventWords, privacyTopicWords, STATUS_TONE, statusWords } from "~/components/integrations/shopify-words";
import { m } from "~/paraglide/messages";

/**
 * The Shopify page's latest events with what came of each (decision 084): the message sent or why
 * not, a privacy export to download, and an order's payment asked by M-Pesa (decision 142).
 */
export function RecentEvents({
  events,
  reasons,
  payments,
}: {
  events: EventView[];
  reasons: Record<string, string | null>;
  payments: Record<string, string | null>;
}) {
  return (
    <Card as="section" aria-labelledby="shopify-recent">
      <h2 id="shopify-recent" className="font-semibold">
        {m.shopify_recent_title()}
      </h2>
      {events.length ? (
        <ul className="mt-3 divide-y divide-slate-100" aria-labelledby="shopify-recent">
          {events.map((event) => (
            <li key={event.id} className="py-2 text-sm" data-status={event.status}>
              <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
                <span className="font-medium">
                  {event.eventType ? eventWords(event.eventType) : (privacyTopicWords(event.topic) ?? event.topic)}
                </span>
                {event.reference ? <span className="text-slate-600">{event.reference}</span> : null}
                <Badge tone={STATUS_TONE[event.status as keyof typeof STATUS_TONE] ?? "neutral"}>{statusWords(event.status)}</Badge>
              </div>
              <p className="text-xs break-words text-slate-500">
                {formatWhen(event.receivedAt)}
                {event.phone ? ` · ${event.phone}` : ""}
                {reasons[event.id] ? ` · ${reasons[event.id]}` : ""}
              </p>
              {payments[event.id] ? (
                <p className="text-xs break-words text-slate-700" data-payment={event.payment?.status}>
                  {payments[event.id]}
                </p>
              ) : null}
              {event.topic === "customers/data_request" && event.reason === "privacy_export_ready" ? (
                <p className="text-xs">
                  <a
                    href={href("/integrations/shopify/requests/:id/data.json", { id: event.id })}
                    download
                    className="link"
                    aria-label={m.shopify_privacy_download_label({ reference: event.reference ?? "" })}
                  >
                    {m.shopify_privacy_download()}
                  </a>
                </p>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-2 text-sm text-slate-600">{m.shopify_recent_empty()}</p>
      )}
    </Card>
  );
}
