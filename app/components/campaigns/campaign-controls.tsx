import { Form } from "react-router";
import type { LiveFigures } from "~/lib/campaign-live";
import { Pause, Play, XCircle } from "~/components/ui/icons";
import { Button } from "~/components/ui/button";

/** Pause, Resume and Cancel: plain POST forms (Cancel asks first, on the page's `?confirm=cancel`). */
export function CampaignControls({
  what,
  canPause,
  canResume,
  canCancel,
}: {
  what: string;
  canPause: boolean;
  canResume: boolean;
  canCancel: boolean;
}) {
  return (
    <div className="flex flex-wrap gap-2">
      {canPause ? (
        <Form method="post">
          <Button type="submit" name="intent" value="pause" variant="secondary" pendingText="Pausing...">
            <Pause className="size-4" aria-hidden /> Pause
          </Button>
        </Form>
      ) : null}
      {canResume ? (
        <Form method="post">
          <Button type="submit" name="intent" value="resume" pendingText="Resuming...">
            <Play className="size-4" aria-hidden /> Resume
          </Button>
        </Form>
      ) : null}
      {canCancel ? (
        <Form method="post">
          <Button type="submit" name="intent" value="cancel" variant="danger">
            <XCircle className="size-4" aria-hidden /> Cancel {what}
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
          Paused{live.pausedReason ? `: ${live.pausedReason}` : pausedBy ? ` by ${pausedBy}.` : "."}
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
