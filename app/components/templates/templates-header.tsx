import { Form, href, Link } from "react-router";
import { Plus, RefreshCw } from "~/components/ui/icons";
import { Button, ButtonLink } from "~/components/ui/button";
import { PageTitle } from "~/components/ui/page-title";
import type { TemplateStatus } from "~/lib/templates";

/** The templates page's title with the counts, its Sync and Create buttons, and the notice when WhatsApp is not connected. */
export function TemplatesHeader({
  counts,
  connected,
  canManage,
  syncing,
}: {
  counts: Record<TemplateStatus, number>;
  connected: boolean;
  canManage: boolean;
  syncing: boolean;
}) {
  const total = Object.values(counts).reduce((a: number, b) => a + Number(b), 0);
  return (
    <>
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <PageTitle>Message Templates</PageTitle>
          <p className="text-slate-600">
            Outside the 24-hour service window, WhatsApp only delivers templates Meta approved. {total} template{total === 1 ? "" : "s"}:{" "}
            {counts.approved} approved, {counts.pending} pending{counts.held ? `, ${counts.held} held for review` : ""}, {counts.rejected}{" "}
            rejected, {counts.draft} draft
            {counts.draft === 1 ? "" : "s"}.
          </p>
        </div>
        {canManage ? (
          <div className="flex flex-wrap gap-2">
            {connected ? (
              <Form method="post">
                <Button type="submit" name="intent" value="sync" variant="secondary" pending={syncing} pendingText="Syncing...">
                  <RefreshCw className="size-4" aria-hidden /> Sync from Meta
                </Button>
              </Form>
            ) : null}
            <ButtonLink to={href("/templates/new")}>
              <Plus className="size-4" aria-hidden /> Create template
            </ButtonLink>
          </div>
        ) : null}
      </div>

      {!connected ? (
        <p className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          No WhatsApp Business account is connected, so templates can be saved as drafts but not submitted to Meta yet.{" "}
          <Link to={href("/whatsapp")} className="font-semibold underline">
            Connect WhatsApp
          </Link>
        </p>
      ) : null}
    </>
  );
}
