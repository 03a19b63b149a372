import { Link } from "~/components/ui/link";
import type { TimelineEntry } from "~/.server/domains/contacts/timeline";
import { Badge } from "~/components/ui/badge";
import { Card, CardHeader } from "~/components/ui/card";
import { formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";
import { optInLabels, sourceLabels } from "./labels";

/** The contact's messages and consent events, newest first, with a link to older ones. */
export function ContactTimeline({ entries, olderHref }: { entries: TimelineEntry[]; olderHref: string | null }) {
  return (
    <Card>
      <CardHeader title={m.messaging_contact_timeline_title()} description={m.messaging_contact_timeline_description()} />
      <ol className="mt-4 space-y-3" aria-label={m.messaging_contact_timeline_title()}>
        {entries.length ? (
          entries.map((entry) => (
            <li key={`${entry.kind}-${entry.id}`} className="rounded-lg border border-slate-100 p-3 text-sm">
              <p className="text-xs text-slate-500">{formatWhen(entry.at)}</p>
              <TimelineText entry={entry} />
            </li>
          ))
        ) : (
          <li className="text-sm text-slate-600">{m.messaging_contact_timeline_empty()}</li>
        )}
      </ol>
      {olderHref ? (
        <Link to={olderHref} className="mt-3 inline-block text-sm font-semibold text-brand-700 underline">
          {m.messaging_contact_timeline_older()}
        </Link>
      ) : null}
    </Card>
  );
}

function TimelineText({ entry }: { entry: TimelineEntry }) {
  if (entry.kind === "consent") {
    const sources: Record<string, string> = sourceLabels();
    return (
      <p>
        <span className="font-medium">{optInLabels()[entry.status]}</span> ({sources[entry.source] ?? entry.source})
        {entry.evidence ? `: ${entry.evidence}` : ""}
      </p>
    );
  }
  return (
    <p>
      <span className="font-medium">
        {entry.direction === "inbound" ? m.messaging_contact_timeline_received() : m.messaging_contact_timeline_sent()}
      </span>{" "}
      <Badge status={entry.status}>{messageStatusWords(entry.status)}</Badge>{" "}
      <span className="break-words whitespace-pre-line">{entry.body || `(${entry.messageType})`}</span>
    </p>
  );
}

/** A message's status as its ticks say it ("delivered"); one not known here shows as stored. */
function messageStatusWords(status: string): string {
  const words: Record<string, () => string> = {
    queued: m.messaging_message_status_queued,
    sent: m.messaging_message_status_sent,
    delivered: m.messaging_message_status_delivered,
    read: m.messaging_message_status_read,
    failed: m.messaging_message_status_failed,
    received: m.messaging_message_status_received,
  };
  return words[status]?.() ?? status;
}
