import type { ConversationAd } from "~/lib/inbox";
import type { ConversationConversions } from "~/lib/ad-conversions";
import { AdConversions } from "./ad-conversions";
import { timeLeft } from "./window-words";
import { m } from "~/paraglide/messages";

/**
 * The conversation header's line about the Click-to-WhatsApp ad the customer came from (decision 154):
 * its headline (a link to the ad), and Meta's free entry window while it is open; with `conversions`,
 * the conversion events sent back to Meta and "Mark as converted" (decision 156).
 */
export function AdEntry({
  ad,
  freeEntryUntil,
  now,
  conversions,
}: {
  ad: ConversationAd | null;
  freeEntryUntil: string | null;
  now: string;
  conversions?: ConversationConversions | null;
}) {
  const freeOpen = freeEntryUntil !== null && Date.parse(freeEntryUntil) > Date.parse(now);
  if (!ad && !freeOpen) return null;
  const words = ad?.headline ? m.inbox_ad_from({ headline: ad.headline }) : m.inbox_ad_untitled();
  return (
    <>
      <p className="flex min-w-0 items-center gap-1.5 truncate text-xs text-slate-600" data-testid="ad-entry">
        {ad?.picture ? (
          // Small and fixed (no layout shift), lazy; empty alt: the headline beside it says what it is.
          <img
            src={ad.picture}
            alt=""
            width={20}
            height={20}
            loading="lazy"
            decoding="async"
            className="size-5 shrink-0 rounded object-cover"
          />
        ) : null}
        {ad ? (
          ad.sourceUrl ? (
            <a
              href={ad.sourceUrl}
              rel="noopener noreferrer"
              target="_blank"
              className="text-brand-800 hover:underline"
              title={ad.body ?? undefined}
            >
              {words}
            </a>
          ) : (
            <span title={ad.body ?? undefined}>{words}</span>
          )
        ) : null}
        {ad && freeOpen ? " · " : null}
        {freeOpen ? <span data-testid="free-entry">{m.inbox_free_entry_open({ left: timeLeft(freeEntryUntil, now) })}</span> : null}
      </p>
      {ad && conversions ? <AdConversions conversationId={conversions.conversationId} conversions={conversions} /> : null}
    </>
  );
}
