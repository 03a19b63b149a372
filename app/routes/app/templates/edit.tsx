import { data, href } from "react-router";
import { Link } from "~/components/ui/link";
import { ArrowLeft } from "~/components/ui/icons";
import type { Route } from "./+types/edit";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import type { Submission } from "@conform-to/react";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { actorOf, formAction } from "~/.server/domains/auth/form-actions";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { findTemplate } from "~/.server/domains/templates/queries";
import { createTemplate, templateInput, updateTemplate } from "~/.server/domains/templates/manage";
import { templateAccountChoices } from "~/.server/domains/templates/accounts";
import { readFormSample, withStoredSample } from "~/.server/domains/templates/media";
import { applyRowIntent, emptyTemplateInput } from "~/lib/template-form";
import { problemErrors, TemplateFieldsSchema, TemplatePostSchema } from "~/lib/schemas/templates";
import { SAVING_INTENTS } from "~/lib/schemas/templates-rules";
import {
  heldExplanation,
  templateProblems,
  templateStatusTone,
  templateStatusWord,
  type Problems,
  type TemplateInput,
} from "~/lib/templates";
import { TemplateForm } from "~/components/templates/template-form";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Badge } from "~/components/ui/badge";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { liveDocumentPage, loadAsDocument } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// A document without React (decision 068): the server redraws the preview and the example fields as
// they are typed (app/assets/live.js, data-live-post), and checks the form when it is sent.
export const handle: PermissionHandle & PageHandle = { permission: "templates:manage", ...liveDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: `${loaderData?.template ? m.templates_edit_title({ name: loaderData.template.name }) : m.templates_create_title()} | Jumbe` },
];

/** /templates/new and /templates/:id/edit: a page of its own, so it works without JavaScript. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  const accounts = await templateAccountChoices(organizationId);
  if (!args.params.id) return { template: null, values: emptyTemplateInput(), accounts };
  const template = await findTemplate(organizationId, args.params.id);
  if (!template) throw data(m.templates_not_found(), { status: 404 });
  return {
    template: {
      id: template.id,
      name: template.name,
      status: template.status,
      submitted: template.metaTemplateId !== null,
      accountId: template.accountId,
      rejectionReason: template.rejectionReason,
      platformRejection: template.status === "rejected" ? template.platformRejection : null,
      lastError: template.lastError,
    },
    values: await withStoredSample(organizationId, template.id, templateInput(template)),
    accounts,
  };
}

export async function action(args: Route.ActionArgs) {
  return formAction(args, {
    permission: "templates:manage",
    schema: TemplatePostSchema,
    invalid: () => {
      throw data(m.templates_unknown_action(), { status: 400 });
    },
    handle: async ({ value: { intent, accountId }, submission, form, user: current }) => {
      // The fields are read as typed (the post as Conform read it, nothing coerced), never refused
      // here: the domain judges them when saving.
      const fields = TemplateFieldsSchema.safeParse(submission.payload);
      if (!fields.success) throw data(m.templates_unknown_action(), { status: 400 });
      // A media header's sample: a file chosen now is checked and kept, so a form sent back keeps it.
      const sample = await readFormSample(current.organization.id, form, fields.data, args.params.id);
      const values = sample.values;
      if (sample.problem) return refused(submission, values, { ...templateProblems(values), headerSample: sample.problem });
      // Adding or removing a button row, or showing example fields: the same form back, changed.
      const changed = applyRowIntent(values, intent);
      if (changed) return { result: submission.reply(), toast: null, values: changed };
      if (!(SAVING_INTENTS as readonly string[]).includes(intent)) throw data(m.templates_unknown_action(), { status: 400 });
      const actor = actorOf(args, current);
      const options = { accountId, submit: intent === "submit" };
      const result = args.params.id
        ? await updateTemplate(actor, args.params.id, values, options)
        : await createTemplate(actor, values, options);
      if (!result.ok) {
        if (result.status === 404) throw data(m.templates_not_found(), { status: 404 });
        return refused(submission, values, result.problems);
      }
      if (result.submitError)
        return redirectWithToast(
          href("/templates/:id/edit", { id: result.template.id }),
          "error",
          m.templates_saved_meta_refused({ reason: result.submitError }),
        );
      const name = result.template.name;
      const message =
        intent !== "submit"
          ? m.templates_saved_draft({ name })
          : result.template.status === "held"
            ? m.templates_saved_held({ name })
            : m.templates_saved_submitted({ name });
      return redirectWithToast(href("/templates"), "success", message);
    },
  });
}

/** The form again (400): the problems at their fields, and the values as the server read them (the kept sample). */
function refused(submission: Submission<unknown>, values: TemplateInput, problems: Problems) {
  return formFailure(submission.reply(problemErrors(problems)), 400, undefined, { values });
}

export default function TemplateEditor({ loaderData, actionData }: Route.ComponentProps) {
  const { template, accounts } = loaderData;
  // A post that does not fit is refused with a 400 page (the action throws), so an answer here carries values.
  const values: TemplateInput = (actionData && "values" in actionData ? actionData.values : undefined) ?? loaderData.values;
  return (
    <div className="space-y-6">
      <div>
        <Link to={href("/templates")} className="inline-flex items-center gap-1 text-sm font-medium text-brand-700 hover:underline">
          <ArrowLeft className="size-4" aria-hidden /> {m.templates_title()}
        </Link>
        <h1 className="mt-2 flex flex-wrap items-center gap-3 text-2xl font-bold tracking-tight wrap-anywhere">
          {template ? m.templates_edit_title({ name: template.name }) : m.templates_create_title()}
          {template ? <Badge tone={templateStatusTone(template.status)}>{templateStatusWord(template.status)}</Badge> : null}
        </h1>
        {template?.status === "held" ? (
          <p className="mt-2 rounded-lg border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-900">{heldExplanation()}</p>
        ) : null}
        {template?.platformRejection ? (
          <p className="mt-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
            {m.templates_edit_platform_rejection({ reason: template.platformRejection })}
          </p>
        ) : null}
        {template?.rejectionReason ? (
          <p className="mt-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
            {m.templates_edit_meta_rejection({ reason: template.rejectionReason })}
          </p>
        ) : null}
        {template?.lastError ? (
          <p className="mt-2 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">{template.lastError}</p>
        ) : null}
      </div>
      <TemplateForm
        values={values}
        lastResult={actionData?.result}
        accounts={accounts}
        accountId={template?.accountId}
        locked={template?.submitted}
      />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
