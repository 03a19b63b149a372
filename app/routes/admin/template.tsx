import { data, Form, href, useNavigation } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/template";
import { requireDeclaredStaff, type CurrentUser } from "~/.server/domains/auth/guards";
import type { SubmissionOf } from "~/.server/infrastructure/http/intents";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { adminFormAction } from "~/.server/domains/admin/form-actions";
import { refusalOf, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { findReviewedTemplate } from "~/.server/domains/admin/templates/queries";
import { approveHeldTemplate, rejectHeldTemplate, setTemplateHold } from "~/.server/domains/admin/templates/review";
import { templateHistory, templateEventWords } from "~/.server/domains/templates/events";
import { templateInput } from "~/.server/domains/templates/manage";
import { withStoredSample } from "~/.server/domains/templates/media";
import { findTemplate } from "~/.server/domains/templates/queries";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { MessagePreview } from "~/components/templates/message-preview";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { Notice } from "~/components/ui/notice";
import { SummaryList } from "~/components/ui/summary";
import { Name } from "~/components/ui/name";
import { formatWhen } from "~/lib/dates";
import { withoutBidiControls } from "~/lib/names";
import { categoryLabel, formatBytes, languageLabel, renderTemplate, templateStatusLabel, templateStatusTone } from "~/lib/templates";
import { TextLink } from "~/components/ui/text-link";
import { RejectForm, TemplateHistory } from "~/components/admin/templates/review-parts";
import { formErrorsOf, replyFor } from "~/components/admin/billing/form-reply";
import { m } from "~/paraglide/messages";

export const meta: Route.MetaFunction = ({ loaderData }) => [
  {
    title: m.admin_title({
      page: loaderData?.template ? m.admin_template_review_title({ name: loaderData.template.name }) : m.admin_template_review(),
    }),
  },
];

/** The template under review, or a 404 for one that is not. */
async function reviewedBy(current: CurrentUser, id: string) {
  const scope = platformScope(current);
  const reviewed = await findReviewedTemplate(scope, id);
  if (!reviewed) throw data(m.admin_template_not_found(), { status: 404 });
  return { current, scope, reviewed };
}

async function requireReviewed(args: Route.LoaderArgs) {
  return reviewedBy(await requireDeclaredStaff(args), args.params.id);
}

export async function loader(args: Route.LoaderArgs) {
  const { reviewed } = await requireReviewed(args);
  const template = (await findTemplate(reviewed.organizationId, reviewed.id))!;
  // A media header's sample from the console's own route (the tenant's /templates/:id/sample is tenant-scoped).
  const sampleUrl = href("/admin/templates/:id/header-sample", { id: template.id });
  const input = await withStoredSample(reviewed.organizationId, template.id, templateInput(template), sampleUrl);
  const history = await templateHistory(template.id);
  return {
    tenant: reviewed,
    template: {
      id: template.id,
      name: template.name,
      status: template.status,
      category: template.category,
      previousCategory: template.previousCategory,
      language: template.language,
      wabaId: template.wabaId,
      metaTemplateId: template.metaTemplateId,
      rejectionReason: template.rejectionReason,
      platformRejection: template.platformRejection,
      platformReviewedAt: template.platformReviewedAt?.toISOString() ?? null,
      qualityScore: template.qualityScore,
      lastError: template.lastError,
      source: template.source,
      submittedAt: template.submittedAt?.toISOString() ?? null,
      createdAt: template.createdAt.toISOString(),
    },
    preview: renderTemplate(input),
    sample: input.headerSample?.url
      ? { url: input.headerSample.url, fileName: input.headerSample.fileName, format: input.headerFormat, size: input.headerSample.size }
      : null,
    history: history.map((e) => ({ ...e, words: templateEventWords(e) })),
  };
}

// What each of the page's forms posts: its button's intent, and the reason typed (free text; the domain checks it).
const ReviewSchema = z.object({
  intent: z.enum(["approve", "reject", "hold", "release"]),
  reason: z.optional(z.string()),
  holdReason: z.optional(z.string()),
});

/** Approve (send to Meta), Reject (with the reason the tenant sees), or hold / release the organisation: each audited. */
export async function action(args: Route.ActionArgs) {
  return adminFormAction(args, {
    permission: "platform:console",
    schema: ReviewSchema,
    invalid: async (_submission, _intent, user) => {
      await reviewedBy(user, args.params.id);
      throw data(m.admin_unknown_action(), { status: 400 });
    },
    handle: async ({ value, submission, user }) => review(args, await reviewedBy(user, args.params.id), value, submission),
  });
}

async function review(
  args: Route.ActionArgs,
  { current, scope, reviewed }: Awaited<ReturnType<typeof reviewedBy>>,
  { intent, reason, holdReason }: z.output<typeof ReviewSchema>,
  submission: SubmissionOf<typeof ReviewSchema>,
) {
  const meta = requestMeta(args.request, args.context);
  const here = href("/admin/templates/:id", { id: reviewed.id });
  try {
    if (intent === "approve") {
      const outcome = await approveHeldTemplate(scope, current, meta, reviewed.id);
      if (outcome.metaError) return redirectWithToast(here, "error", m.admin_template_approved_meta_refused({ error: outcome.metaError }));
      return redirectWithToast(here, "success", m.admin_template_sent_toast({ name: outcome.template.name }));
    }
    if (intent === "reject") {
      const outcome = await rejectHeldTemplate(scope, current, meta, reviewed.id, reason ?? "");
      return redirectWithToast(
        here,
        "success",
        m.admin_template_returned_toast({ name: outcome.template.name, business: withoutBidiControls(reviewed.business) }),
      );
    }
  } catch (error) {
    return refusalReply(submission, refusalOf(error), { extra: { intent } });
  }
  const on = intent === "hold";
  await setTemplateHold(scope, current, meta, reviewed.organizationId, on, holdReason ?? "");
  return redirectWithToast(
    here,
    "success",
    on
      ? m.admin_template_org_held_toast({ name: withoutBidiControls(reviewed.business) })
      : m.admin_template_org_released_toast({ name: withoutBidiControls(reviewed.business) }),
  );
}

export default function AdminTemplateReview({ loaderData, actionData }: Route.ComponentProps) {
  const { tenant, template, preview, sample, history } = loaderData;
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const held = template.status === "held";
  const approveErrors = formErrorsOf(replyFor(actionData, "approve"));
  return (
    <div className="space-y-6">
      <div>
        <BackLink to={href("/admin/templates")}>{m.admin_tab_templates()}</BackLink>
        <h1 className="mt-2 flex flex-wrap items-center gap-3 text-2xl font-bold tracking-tight wrap-anywhere">
          <span className="break-all">{template.name}</span>
          <Badge tone={templateStatusTone(template.status)}>{templateStatusLabel(template.status)}</Badge>
        </h1>
        <p className="mt-1 text-slate-600">
          {categoryLabel(template.category)} · {languageLabel(template.language)} · <Name>{tenant.business}</Name>
        </p>
      </div>

      {approveErrors ? (
        <Notice tone="warning" title={m.admin_template_not_sent()}>
          {approveErrors[0]}
        </Notice>
      ) : null}
      {template.lastError ? <Notice tone="warning">{template.lastError}</Notice> : null}

      <div className="grid gap-6 lg:grid-cols-2">
        <Card>
          <CardHeader title={m.admin_template_the_template()} description={m.admin_template_preview_intro()} />
          <CardBody>
            <MessagePreview message={preview} />
            {sample ? (
              <p className="mt-3 text-sm text-slate-600" data-testid="header-sample">
                <a href={sample.url} className="text-brand-700 underline">
                  {sample.format === "IMAGE"
                    ? m.admin_template_sample_image()
                    : sample.format === "VIDEO"
                      ? m.admin_template_sample_video()
                      : m.admin_template_sample_document()}
                </a>{" "}
                ({sample.fileName}, {formatBytes(sample.size)})
              </p>
            ) : null}
          </CardBody>
        </Card>

        <div className="space-y-6">
          {held ? (
            <Card aria-labelledby="decision">
              <CardHeader id="decision" title={m.admin_template_decision()} description={m.admin_template_decision_intro()} />
              <CardBody className="space-y-5">
                <Form method="post">
                  <Button type="submit" name="intent" value="approve" pending={busy("approve")} pendingText={m.admin_template_sending()}>
                    {m.admin_template_approve()}
                  </Button>
                </Form>
                <RejectForm result={replyFor(actionData, "reject")} busy={busy("reject")} />
              </CardBody>
            </Card>
          ) : (
            <Notice title={m.admin_template_no_decision({ status: templateStatusLabel(template.status) })}>
              {m.admin_template_no_decision_text()}
            </Notice>
          )}

          <Card>
            <CardHeader title={m.admin_column_organisation()} />
            <CardBody className="space-y-4">
              <SummaryList
                items={[
                  {
                    label: m.admin_column_business(),
                    value: (
                      <TextLink to={`${href("/admin/users/:id", { id: tenant.organizationId })}`}>
                        <Name>{tenant.business}</Name>
                      </TextLink>
                    ),
                  },
                  { label: m.admin_template_business_id(), value: tenant.businessId },
                  { label: m.admin_role_owner(), value: tenant.ownerEmail ?? "—" },
                  { label: m.admin_whatsapp_business_account(), value: template.wabaId ?? m.admin_template_none_yet() },
                  { label: m.admin_template_meta_id(), value: template.metaTemplateId ?? m.admin_template_not_at_meta() },
                  {
                    label: m.admin_template_submitted(),
                    value: template.submittedAt ? formatWhen(template.submittedAt) : m.admin_template_not_submitted(),
                  },
                  {
                    label: m.admin_template_platform_review(),
                    value: tenant.templateReview ? m.admin_template_review_held() : m.admin_template_review_straight(),
                  },
                ]}
              />
              {template.platformRejection ? (
                <p className="text-sm text-red-700">{m.admin_template_returned_by_jumbe({ reason: template.platformRejection })}</p>
              ) : null}
              {template.rejectionReason ? (
                <p className="text-sm text-red-700">{m.admin_template_meta_reason({ reason: template.rejectionReason })}</p>
              ) : null}
              <Form method="post" className="flex flex-wrap items-end gap-3">
                <Field label={m.admin_audit_reason_label()} name="holdReason" maxLength={1000} className="min-w-56 flex-1" />
                {tenant.templateReview ? (
                  <Button type="submit" name="intent" value="release" variant="secondary" pending={busy("release")}>
                    {m.admin_template_release()}
                  </Button>
                ) : (
                  <Button type="submit" name="intent" value="hold" variant="secondary" pending={busy("hold")}>
                    {m.admin_template_hold()}
                  </Button>
                )}
              </Form>
            </CardBody>
          </Card>
        </div>
      </div>

      <TemplateHistory history={history} importedFromMeta={template.source === "meta"} />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
