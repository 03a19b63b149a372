import { Link } from "react-router";
import type { TimelineEntry } from "~/.server/domains/contacts/timeline";
import { Badge } from "~/components/ui/badge";
import { Card, CardHeader } from "~/components/ui/card";
import { formatWhen } from "~/lib/dates";
import { OPT_IN_LABELS, SOURCE_LABELS } from "./labels";

/** The contact's messages and consent events, newest first, with a link to older ones. */
export function ContactTimeline({ entries, olderHref }: { entries: TimelineEntry[]; olderHref: string | null }) {
  return (
    <Card>
      <CardHeader title="Timeline" description="Messages and consent events, newest first." />
      <ol className="mt-4 space-y-3" aria-label="Timeline">
        {entries.length ? (
          entries.map((entry) => (
            <li key={`${entry.kind}-${entry.id}`} className="rounded-lg border border-slate-100 p-3 text-sm">
              <p className="text-xs text-slate-500">{formatWhen(entry.at)}</p>
              <TimelineText entry={entry} />
            </li>
          ))
        ) : (
          <li className="text-sm text-slate-600">No messages or consent events yet.</li>
        )}
      </ol>
      {olderHref ? (
        <Link to={olderHref} className="mt-3 inline-block text-sm font-semibold text-brand-700 underline">
          Older events
        </Link>
      ) : null}
    </Card>
  );
}

function TimelineText({ entry }: { entry: TimelineEntry }) {
  if (entry.kind === "consent")
    return (
      <p>
        <span className="font-medium">{OPT_IN_LABELS[entry.status]}</span> (
        {SOURCE_LABELS[entry.source as keyof typeof SOURCE_LABELS] ?? entry.source}){entry.evidence ? `: ${entry.evidence}` : ""}
      </p>
    );
  return (
    <p>
      <span className="font-medium">{entry.direction === "inbound" ? "Received" : "Sent"}</span>{" "}
      <Badge status={entry.status}>{entry.status}</Badge>{" "}
      <span className="break-words whitespace-pre-line">{entry.body || `(${entry.messageType})`}</span>
    </p>
  );
}
