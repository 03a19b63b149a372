import { href } from "react-router";
import type { heldQueue } from "~/.server/domains/admin/templates/queries";
import { ButtonLink } from "~/components/ui/button";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { Name } from "~/components/ui/name";
import { formatWhen } from "~/lib/dates";
import { categoryLabel, languageLabel } from "~/lib/templates";
import { m } from "~/paraglide/messages";

type QueuedTemplate = Awaited<ReturnType<typeof heldQueue>>[number];

/** The held submissions waiting longest, each with its Review button (nothing when none waits). */
export function ReviewQueue({ queue }: { queue: QueuedTemplate[] }) {
  if (!queue.length) return null;
  return (
    <Card>
      <CardHeader
        title={m.admin_review_waiting()}
        description={m.admin_review_queue_intro()}
        actions={
          <ButtonLink to={`${href("/admin/templates")}?status=held&sort=submitted&dir=asc`} size="sm" variant="secondary">
            {m.admin_review_all_held()}
          </ButtonLink>
        }
      />
      <CardBody>
        <ul className="divide-y divide-slate-100">
          {queue.map((t) => (
            <li key={t.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
              <span>
                <span className="font-medium break-all text-slate-900">{t.name}</span>{" "}
                <span className="text-slate-600">
                  · <Name>{t.business}</Name> · {categoryLabel(t.category)} · {languageLabel(t.language)}
                  {t.submittedAt ? ` · ${m.admin_review_submitted({ when: formatWhen(t.submittedAt) })}` : ""}
                </span>
              </span>
              <ButtonLink to={href("/admin/templates/:id", { id: t.id })} size="sm">
                {m.admin_review()}
                <span className="sr-only"> {t.name}</span>
              </ButtonLink>
            </li>
          ))}
        </ul>
      </CardBody>
    </Card>
  );
}
