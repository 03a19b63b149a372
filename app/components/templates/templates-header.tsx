import { Form, href } from "react-router";
import { Link } from "~/components/ui/link";
import { Plus, RefreshCw } from "~/components/ui/icons";
import { Button, ButtonLink } from "~/components/ui/button";
import { PageTitle } from "~/components/ui/page-title";
import type { TemplateStatus } from "~/lib/templates";
import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

/** "5 templates: 3 approved, 1 pending, 0 rejected, 1 draft." in the request's language, each count by its own word. */
function countsSentence(counts: Record<TemplateStatus, number>, total: number) {
  const say = (count: number, one: (inputs: { count: number }) => string, other: (inputs: { count: number }) => string) =>
    byCount(
      count,
      () => one({ count }),
      () => other({ count }),
    );
  const parts = [
    say(counts.approved, m.templates_count_approved_one, m.templates_count_approved_other),
    say(counts.pending, m.templates_count_pending_one, m.templates_count_pending_other),
    ...(counts.held ? [say(counts.held, m.templates_count_held_one, m.templates_count_held_other)] : []),
    say(counts.rejected, m.templates_count_rejected_one, m.templates_count_rejected_other),
    say(counts.draft, m.templates_count_draft_one, m.templates_count_draft_other),
  ];
  return m.templates_count_sentence({
    total: say(total, m.templates_count_total_one, m.templates_count_total_other),
    list: parts.join(", "),
  });
}

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
          <PageTitle>{m.templates_title()}</PageTitle>
          <p className="text-slate-600">
            {m.templates_header_intro()} {countsSentence(counts, total)}
          </p>
        </div>
        {canManage ? (
          <div className="flex flex-wrap gap-2">
            {connected ? (
              <Form method="post">
                <Button type="submit" name="intent" value="sync" variant="secondary" pending={syncing} pendingText={m.templates_syncing()}>
                  <RefreshCw className="size-4" aria-hidden /> {m.templates_sync()}
                </Button>
              </Form>
            ) : null}
            <ButtonLink to={href("/templates/new")}>
              <Plus className="size-4" aria-hidden /> {m.templates_create_title()}
            </ButtonLink>
          </div>
        ) : null}
      </div>

      {!connected ? (
        <p className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          {m.templates_not_connected()}{" "}
          <Link to={href("/whatsapp")} className="font-semibold underline">
            {m.templates_connect_whatsapp()}
          </Link>
        </p>
      ) : null}
    </>
  );
}
