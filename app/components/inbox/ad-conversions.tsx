import { Form } from "react-router";
import type { ConversationConversions, ConversionLine } from "~/lib/ad-conversions";
import { useCan } from "~/components/layout/shell-role";
import { Button } from "~/components/ui/button";
import { formatKes } from "~/lib/invoice";
import { m } from "~/paraglide/messages";

const STATUS_WORDS: Record<ConversionLine["status"], () => string> = {
  queued: m.ads_conversion_status_queued,
  sending: m.ads_conversion_status_sending,
  sent: m.ads_conversion_status_sent,
  failed: m.ads_conversion_status_failed,
  skipped: m.ads_conversion_status_skipped,
};

const TONES: Record<ConversionLine["status"], string> = {
  queued: "text-slate-600",
  sending: "text-slate-600",
  sent: "text-brand-800",
  failed: "text-red-700",
  skipped: "text-amber-800",
};

/**
 * The conversion events of a conversation from an ad (decision 156), each with its status (why it
 * failed or was not sent as its title), and "Mark as converted": a plain form post, with or without
 * JavaScript, for members who answer.
 */
export function AdConversions({ conversationId, conversions }: { conversationId: string; conversions: ConversationConversions }) {
  const canReply = useCan("inbox:reply");
  const canMark = canReply && conversions.canMark;
  if (!conversions.events.length && !canMark) return null;
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs" data-testid="ad-conversions">
      {conversions.events.length ? (
        <ul aria-label={m.ads_conversion_list_label()} className="flex flex-wrap gap-x-3 gap-y-1 text-slate-700">
          {conversions.events.map((e) => (
            <li key={e.id} data-status={e.status} title={e.reason ?? undefined}>
              {e.eventName === "Purchase" ? m.ads_conversion_purchase({ value: formatKes(e.valueCents ?? 0) }) : m.ads_conversion_lead()}
              {" · "}
              <span className={TONES[e.status]}>{STATUS_WORDS[e.status]()}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {canMark ? (
        <Form method="post" action={`/chat/${conversationId}/conversion`}>
          {/* Posts to /chat/<id>/conversion (its own route and intent), not to the page it sits on. */}
          <Button type="submit" size="sm" variant="secondary" value="mark" name="intent">
            {m.ads_conversion_mark()}
          </Button>
        </Form>
      ) : null}
    </div>
  );
}
