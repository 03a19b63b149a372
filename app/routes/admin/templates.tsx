import { data, href, useNavigation, useSearchParams } from "react-router";
import type { SubmissionResult } from "~/components/ui/form-state";
import * as z from "zod/mini";
import type { Route } from "./+types/templates";
import { requireDeclaredStaff, type CurrentUser } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { adminFormAction } from "~/.server/domains/admin/form-actions";
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
import { adminTemplateColumns } from "~/components/admin/templates/template-columns";
import { TemplateFigures } from "~/components/admin/templates/template-figures";
import { ReviewQueue } from "~/components/admin/templates/review-queue";
import { HeldOrganisationsCard, NewOrganisationsCard, OrganisationHoldCard } from "~/components/admin/templates/hold-forms";
import { replyFor } from "~/components/admin/billing/form-reply";
import { m } from "~/paraglide/messages";

export const meta: Route.MetaFunction = () => [{ title: m.admin_title({ page: m.admin_tab_templates() }) }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
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
  return adminFormAction(args, {
    permission: "platform:console",
    schema: HoldSchema,
    invalid: () => {
      throw data(m.admin_unknown_action(), { status: 400 });
    },
    handle: ({ value, submission, user }) => holdOrRelease(args, user, value, submission),
  });
}

async function holdOrRelease(args: Route.ActionArgs, current: CurrentUser, value: z.output<typeof HoldSchema>, submission: HoldSubmission) {
  const { intent, hold, reason = "" } = value;
  const scope = platformScope(current);
  const meta = requestMeta(args.request, args.context);
  if (intent === "new-organisations") {
    if (hold !== "on" && hold !== "off") return refusedAt(submission, intent, "hold", m.admin_templates_new_choose());
    const on = hold === "on";
    const changed = await setHoldNewOrganisations(scope, current, meta, on, reason);
    const message = on
      ? changed
        ? m.admin_templates_new_held_toast()
        : m.admin_templates_new_already_held_toast()
      : changed
        ? m.admin_templates_new_released_toast()
        : m.admin_templates_new_not_held_toast();
    return redirectWithToast(href("/admin/templates"), "success", message);
  }
  // Every hold and release form's refusal shows in "Hold an organisation" (the others send an id).
  const who = value.organisation?.trim() ?? "";
  if (!who) return refusedAt(submission, "hold", "organisation", m.admin_templates_hold_who());
  const organisation = await findOrganisationForHold(scope, who);
  if (!organisation) return refusedAt(submission, "hold", "organisation", m.admin_templates_hold_unknown({ who }));
  const on = intent === "hold";
  const changed = await setTemplateHold(scope, current, meta, organisation.id, on, reason);
  const back = value.back === "org" ? `${href("/admin/templates")}?org=${organisation.id}` : href("/admin/templates");
  const name = withoutBidiControls(organisation.name);
  const message = on
    ? changed
      ? m.admin_templates_org_held_toast({ name })
      : m.admin_templates_org_already_held_toast({ name })
    : changed
      ? m.admin_templates_org_released_toast({ name })
      : m.admin_templates_org_not_held_toast({ name });
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
        <PageTitle>{m.admin_tab_templates()}</PageTitle>
        <p className="mt-1 text-slate-600">{m.admin_templates_intro()}</p>
      </div>

      <TemplateFigures figures={figures} />

      <ReviewQueue queue={queue} />

      {organisation ? <OrganisationHoldCard organisation={organisation} busy={busy} /> : null}

      <TemplateFilters
        filters={filters}
        placeholder={m.admin_templates_search_placeholder()}
        hidden={filters.organizationId ? <input type="hidden" name="org" value={filters.organizationId} /> : null}
      >
        <div className="flex gap-2">
          <Button type="submit">{m.admin_templates_apply_filters()}</Button>
          {filtered ? (
            <ButtonLink to={href("/admin/templates")} variant="secondary">
              {m.admin_clear()}
            </ButtonLink>
          ) : null}
        </div>
      </TemplateFilters>

      <Card padding="none">
        <Table
          caption={m.admin_templates_caption()}
          columns={adminTemplateColumns()}
          rows={page.rows}
          rowKey={(r) => r.id}
          searchParams={searchParams}
          empty={filtered ? m.admin_templates_empty_filtered() : m.admin_templates_empty()}
        />
        <div className="px-4 pb-4">
          <Pager
            searchParams={searchParams}
            newer={page.newer}
            older={page.older}
            label={m.admin_templates_pages()}
            order={submissionOrder}
          />
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
