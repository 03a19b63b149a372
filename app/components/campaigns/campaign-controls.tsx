import { Form } from "react-router";
import type { LiveFigures } from "~/lib/campaign-live";
import { Pause, Play, XCircle } from "~/components/ui/icons";
import { Button } from "~/components/ui/button";
import { m } from "~/paraglide/messages";

/** Pause, Resume and Cancel: plain POST forms (Cancel asks first, on the page's `?confirm=cancel`). */
export function CampaignControls({
  kind,
  canPause,
  canResume,
  canCancel,
}: {
  kind: "campaign" | "broadcast";
  canPause: boolean;
  canResume: boolean;
  canCancel: boolean;
}) {
  return (
    <div className="flex flex-wrap gap-2">
      {canPause ? (
        <Form method="post">
          <Button type="submit" name="intent" value="pause" variant="secondary" pendingText={m.messaging_campaign_pausing()}>
            <Pause className="size-4" aria-hidden /> {m.messaging_campaign_pause()}
          </Button>
        </Form>
      ) : null}
      {canResume ? (
        <Form method="post">
          <Button type="submit" name="intent" value="resume" pendingText={m.messaging_campaign_resuming()}>
            <Play className="size-4" aria-hidden /> {m.messaging_campaign_resume()}
          </Button>
        </Form>
      ) : null}
      {canCancel ? (
        <Form method="post">
          <Button type="submit" name="intent" value="cancel" variant="danger">
            <XCircle className="size-4" aria-hidden />{" "}
            {kind === "broadcast" ? m.messaging_campaign_cancel_button_broadcast() : m.messaging_campaign_cancel_button_campaign()}
          </Button>
        </Form>
      ) : null}
    </div>
  );
}

/** Why it is paused (and by whom), and the live notices the events route sends. */
export function CampaignNotices({ live, pausedBy }: { live: LiveFigures; pausedBy: string | null }) {
  return (
    <>
      {live.pausedReason || (live.status === "paused" && pausedBy) ? (
        <p role="status" className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          {live.pausedReason
            ? m.messaging_campaign_paused_reason({ reason: live.pausedReason })
            : pausedBy
              ? m.messaging_campaign_paused_by({ name: pausedBy })
              : m.messaging_campaign_paused_notice()}
        </p>
      ) : null}
      {live.notice ? (
        <p role="status" className="rounded-lg border border-sky-200 bg-sky-50 px-4 py-3 text-sm text-sky-900">
          {live.notice}
        </p>
      ) : null}
    </>
  );
}
