import { data, href, useNavigation, useSearchParams } from "react-router";
import type { SubmissionResult } from "~/components/ui/form-state";
import { parseWithZod } from "@conform-to/zod/v4";
import * as z from "zod/mini";
import type { Route } from "./+types/templates";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { formFailure, readForm } from "~/.server/infrastructure/http/forms";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import {
  adminTemplateFigures,
  adminTemplatePage,
  findOrganisationForHold,
  heldOrganisations,
  heldQueue,
  readAdminTemplateFilters,
} from "~/.server/domains/admin/templates/queries";
import { setTemplateHold } from "~/.server/domains/admin/templates/review";
import { holdsNewOrganisations, setHoldNewOrganisations } from "~/.server/domains/admin/templates/new-organisations";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { TemplateFilters } from "~/components/templates/template-filters";
import { Pager, pagerOrder, Table } from "~/components/ui/table";
import { withoutBidiControls } from "~/lib/names";
import { PageTitle } from "~/components/ui/page-title";
import { ADMIN_TEMPLATE_COLUMNS } from "~/components/admin/templates/template-columns";
import { TemplateFigures } from "~/components/admin/templates/template-figures";
import { ReviewQueue } from "~/components/admin/templates/review-queue";
import { HeldOrganisationsCard, NewOrganisationsCard, OrganisationHoldCard } from "~/components/admin/templates/hold-forms";
import { replyFor } from "~/components/admin/billing/form-reply";

export const meta: Route.MetaFunction = () => [{ title: "Templates | Admin console | Jumbe" }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const scope = platformScope(current);
  const params = args.url.searchParams;
  const filters = readAdminTemplateFilters(params);
  const [figures, page, queue, held, organisation, holdNew] = await Promise.all([
    adminTemplateFigures(scope),
    adminTemplatePage(scope, filters, { after: params.get("after"), before: params.get("before") }),
    heldQueue(scope, 5),
    heldOrganisations(scope),
    filters.organizationId ? findOrganisationForHold(scope, filters.organizationId) : undefined,
    holdsNewOrganisations(scope),
  ]);
  return { filters, figures, page, queue, held, organisation: organisation ?? null, holdNew };
}

// What the page's hold forms post: their button's intent and free text the action checks.
const HoldSchema = z.object({
  intent: z.enum(["new-organisations", "hold", "release"]),
  hold: z.optional(z.string()),
  organisation: z.optional(z.string()),
  reason: z.optional(z.string()),
  back: z.optional(z.string()),
});

type HoldSubmission = { reply: (options: { fieldErrors: Record<string, string[]> }) => SubmissionResult<string[]> };

/** The form again with its field's error and its intent. */
const refusedAt = (submission: HoldSubmission, intent: string, field: string, message: string) =>
  formFailure(submission.reply({ fieldErrors: { [field]: [message] } }), 400, undefined, { intent });

/**
 * Holding or releasing an organisation's template submissions (audited: template.hold /
 * template.release), and the platform setting that holds new organisations' from their sign-up
 * (new-organisations, hold on or off; audited: template.hold_new_organisations /
 * template.release_new_organisations).
 */
export async function action(args: Route.ActionArgs) {
  const current = await requirePlatformAdmin(args);
  const scope = platformScope(current);
  const submission = parseWithZod(await readForm(args.request), { schema: HoldSchema });
  if (submission.status !== "success") throw data("Unknown action.", { status: 400 });
  const { intent, hold, reason = "" } = submission.value;
  const meta = requestMeta(args.request, args.context);
  if (intent === "new-organisations") {
    if (hold !== "on" && hold !== "off")
      return refusedAt(submission, intent, "hold", "Choose whether new organisations' submissions are held.");
    const on = hold === "on";
    const changed = await setHoldNewOrganisations(scope, current, meta, on, reason);
    const message = on
      ? changed
        ? "New organisations' template submissions are now held for review from their sign-up."
        : "New organisations' template submissions were already held for review."
      : changed
        ? "New organisations' template submissions go straight to Meta again."
        : "New organisations' template submissions were not held.";
    return redirectWithToast(href("/admin/templates"), "success", message);
  }
  // Every hold and release form's refusal shows in "Hold an organisation" (the others send an id).
  const who = submission.value.organisation?.trim() ?? "";
  if (!who) return refusedAt(submission, "hold", "organisation", "Enter the organisation's business ID (JMB-...) or a member's e-mail.");
  const organisation = await findOrganisationForHold(scope, who);
  if (!organisation) return refusedAt(submission, "hold", "organisation", `No organisation has the business ID or member e-mail "${who}".`);
  const on = intent === "hold";
  const changed = await setTemplateHold(scope, current, meta, organisation.id, on, reason);
  const back = submission.value.back === "org" ? `${href("/admin/templates")}?org=${organisation.id}` : href("/admin/templates");
  const message = on
    ? changed
      ? `${withoutBidiControls(organisation.name)}'s template submissions are now held for review.`
      : `${withoutBidiControls(organisation.name)}'s submissions were already held for review.`
    : changed
      ? `${withoutBidiControls(organisation.name)}'s template submissions go straight to Meta again.`
      : `${withoutBidiControls(organisation.name)}'s submissions were not held.`;
  return redirectWithToast(back, "success", message);
}

export default function AdminTemplates({ loaderData, actionData }: Route.ComponentProps) {
  const { filters, figures, page, queue, held, organisation, holdNew } = loaderData;
  const submissionOrder = pagerOrder(filters.sort === "submitted", filters.dir);
  const [searchParams] = useSearchParams();
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const filtered = !!(filters.q || filters.status || filters.category || filters.language || filters.organizationId);

  return (
    <div className="space-y-6">
      <div>
        <PageTitle>Templates</PageTitle>
        <p className="mt-1 text-slate-600">
          Every organisation&apos;s message templates. Organisations held for review send their submissions to Jumbe first: approve to send
          one on to Meta, or return it with a reason.
        </p>
      </div>

      <TemplateFigures figures={figures} />

      <ReviewQueue queue={queue} />

      {organisation ? <OrganisationHoldCard organisation={organisation} busy={busy} /> : null}

      <TemplateFilters
        filters={filters}
        placeholder="Template or business name"
        hidden={filters.organizationId ? <input type="hidden" name="org" value={filters.organizationId} /> : null}
      >
        <div className="flex gap-2">
          <Button type="submit">Apply filters</Button>
          {filtered ? (
            <ButtonLink to={href("/admin/templates")} variant="secondary">
              Clear
            </ButtonLink>
          ) : null}
        </div>
      </TemplateFilters>

      <Card padding="none">
        <Table
          caption="Template submissions"
          columns={ADMIN_TEMPLATE_COLUMNS}
          rows={page.rows}
          rowKey={(r) => r.id}
          searchParams={searchParams}
          empty={filtered ? "No templates match these filters." : "No templates yet."}
        />
        <div className="px-4 pb-4">
          <Pager searchParams={searchParams} newer={page.newer} older={page.older} label="Template pages" order={submissionOrder} />
        </div>
      </Card>

      <NewOrganisationsCard holdNew={holdNew} result={replyFor(actionData, "new-organisations")} busy={busy} />

      <HeldOrganisationsCard held={held} result={replyFor(actionData, "hold")} busy={busy} />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
