import { useEffect } from "react";
import { Form, href, redirect, useNavigation, useRevalidator } from "react-router";
import { Link } from "~/components/ui/link";
import { ArrowLeft, Download } from "~/components/ui/icons";
import type { Route } from "./+types/run";
import * as z from "zod/mini";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { actorOf, formAction } from "~/.server/domains/auth/form-actions";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { attributeDefinitions } from "~/.server/domains/contacts/attributes";
import { getImport, startImport, suggestMapping } from "~/.server/domains/contacts/import";
import { DUPLICATE_POLICIES, type DuplicatePolicy } from "~/lib/contact-import";
import { EVIDENCE_MAX } from "~/.server/domains/contacts/consent";
import { formatNumber } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Button, ButtonLink, buttonClass } from "~/components/ui/button";
import { Card, CardBody, CardFooter, CardHeader } from "~/components/ui/card";
import { FormError, SelectField, TextareaField } from "~/components/ui/field";
import { ProgressBar } from "~/components/ui/progress-bar";
import { refusalOf, refusalPageError, refusalFormError } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "contacts:manage" };

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: m.messaging_import_run_meta_title({ file: loaderData?.importing.fileName ?? m.messaging_import_run_meta_fallback() }) },
];

/**
 * /messaging/contacts/import/:id: the mapping form (step 2) while the import waits for it, then its
 * progress and report (step 3). Another tenant's id is 404.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  const importing = await loadImport(organizationId, args.params.id);
  const definitions = await attributeDefinitions(organizationId);
  return {
    importing,
    fields: [...definitions.values()].map((d) => ({ value: `attr:${d.key}`, label: m.messaging_import_custom_field({ label: d.label }) })),
    suggested: importing.status === "uploaded" ? suggestMapping(importing.columns, definitions) : {},
    evidenceMax: EVIDENCE_MAX,
  };
}

async function loadImport(organizationId: string, id: string) {
  try {
    return await getImport(organizationId, id);
  } catch (error) {
    throw refusalPageError(refusalOf(error));
  }
}

// One choice per column of the file (column0, column1...), named by its position: any number of them.
const MappingSchema = z.catchall(z.object({ duplicates: postedText, consentEvidence: postedText }), postedText);

export async function action(args: Route.ActionArgs) {
  return formAction(args, {
    permission: "contacts:manage",
    schema: MappingSchema,
    handle: async ({ value: posted, user }) => {
      const organizationId = user.organization.id;
      const importing = await loadImport(organizationId, args.params.id);
      const mapping: Record<string, string> = {};
      importing.columns.forEach((column, i) => {
        const target = posted[`column${i}`];
        if (target) mapping[column] = target;
      });
      const duplicates = posted.duplicates as DuplicatePolicy;
      const consent = posted.consentEvidence.slice(0, EVIDENCE_MAX + 1);
      try {
        await startImport(actorOf(args, user), importing.id, {
          mapping,
          duplicates,
          consentEvidence: consent,
        });
      } catch (error) {
        return refusalFormError(refusalOf(error), { mapping, duplicates, consent });
      }
      return redirect(href("/messaging/contacts/import/:id", { id: importing.id }));
    },
  });
}

/** What a column can fill (besides the tenant's custom fields), in the page's language. */
const importTargets = () => [
  { value: "", label: m.messaging_import_target_ignore() },
  { value: "name", label: m.messaging_contact_field_name() },
  { value: "phone", label: m.messaging_field_phone_number() },
  { value: "tags", label: m.messaging_import_target_tags() },
  { value: "language", label: m.messaging_import_target_language() },
  { value: "notes", label: m.messaging_contact_notes_label() },
];

/** What a duplicate does, in the page's language. */
const duplicateLabels = (): Record<DuplicatePolicy, string> => ({
  skip: m.messaging_import_duplicates_skip(),
  update: m.messaging_import_duplicates_update(),
  merge_tags: m.messaging_import_duplicates_merge_tags(),
});

export default function ImportRun({ loaderData, actionData }: Route.ComponentProps) {
  const { importing } = loaderData;
  return (
    <div className="space-y-6">
      <div>
        <Link
          to={href("/messaging/contacts/import")}
          className="inline-flex items-center gap-1 text-sm font-medium text-brand-700 hover:underline"
        >
          <ArrowLeft className="size-4" aria-hidden /> {m.messaging_import_run_back()}
        </Link>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">{m.messaging_import_run_title({ file: importing.fileName })}</h1>
        <p className="text-slate-600">
          {m.messaging_import_run_size({ size: formatNumber(Math.round(importing.size / 1024)), columns: importing.columns.length })}
        </p>
      </div>
      {importing.status === "uploaded" ? <Mapping loaderData={loaderData} actionData={actionData} /> : <Progress importing={importing} />}
    </div>
  );
}

function Mapping({ loaderData, actionData }: Pick<Route.ComponentProps, "loaderData" | "actionData">) {
  const { importing, fields, suggested, evidenceMax } = loaderData;
  const navigation = useNavigation();
  const kept = actionData && "mapping" in actionData ? actionData : undefined;
  const chosen = kept?.mapping ?? suggested;
  const targets = [...importTargets(), ...fields];
  const duplicates = duplicateLabels();
  return (
    <Card>
      <CardHeader title={m.messaging_import_mapping_title()} description={m.messaging_import_mapping_description()} />
      <Form method="post">
        <CardBody className="space-y-5">
          <FormError errors={kept?.error ? [kept.error] : undefined} />
          <div className="grid gap-4 sm:grid-cols-2">
            {importing.columns.map((column, i) => (
              <SelectField
                key={column}
                label={m.messaging_import_column_label({ column })}
                name={`column${i}`}
                defaultValue={chosen[column] ?? ""}
                options={targets}
              />
            ))}
          </div>
          <SelectField
            label={m.messaging_import_duplicates_label()}
            name="duplicates"
            defaultValue={kept?.duplicates ?? "skip"}
            options={DUPLICATE_POLICIES.map((p) => ({ value: p, label: duplicates[p] }))}
          />
          <TextareaField
            label={m.messaging_import_consent_label()}
            name="consentEvidence"
            maxLength={evidenceMax}
            defaultValue={kept?.consent ?? ""}
            hint={m.messaging_import_consent_hint()}
          />
        </CardBody>
        <CardFooter>
          <Button type="submit" pending={navigation.state === "submitting"} pendingText={m.messaging_starting()}>
            {m.messaging_import_start()}
          </Button>
        </CardFooter>
      </Form>
    </Card>
  );
}

function Progress({ importing }: { importing: Route.ComponentProps["loaderData"]["importing"] }) {
  const working = importing.status === "queued" || importing.status === "running";
  const revalidator = useRevalidator();
  // With JavaScript: the loader again every second while the job works; without, the page refreshes itself.
  useEffect(() => {
    if (!working) return;
    const timer = setInterval(() => {
      if (revalidator.state === "idle") void revalidator.revalidate();
    }, 1000);
    return () => clearInterval(timer);
  }, [working, revalidator]);
  // The key names each figure for tests and scripts (data-count); the label says it.
  const counts: [string, string, number][] = [
    ["created", m.messaging_import_count_created(), importing.created],
    ["updated", m.messaging_import_count_updated(), importing.updated],
    ["skipped", m.messaging_import_count_skipped(), importing.skipped],
    ["invalid", m.messaging_import_count_invalid(), importing.invalid],
  ];
  return (
    <Card>
      {working ? (
        <noscript>
          <meta httpEquiv="refresh" content="2" />
        </noscript>
      ) : null}
      <CardHeader
        title={
          importing.status === "done"
            ? m.messaging_import_progress_done()
            : importing.status === "failed"
              ? m.messaging_import_progress_failed()
              : m.messaging_import_progress_working()
        }
        description={
          working
            ? importing.status === "queued"
              ? m.messaging_import_progress_queued()
              : m.messaging_import_progress_running()
            : undefined
        }
      />
      <CardBody className="space-y-5">
        <ProgressBar
          label={m.messaging_import_file_read()}
          value={importing.bytesRead}
          max={Math.max(importing.size, 1)}
          tone={importing.status === "failed" ? "danger" : "brand"}
        />
        {importing.error ? <FormError errors={[importing.error]} /> : null}
        <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4" aria-live="polite">
          {counts.map(([key, label, value]) => (
            <div key={key} className="rounded-lg border border-slate-200 p-3">
              <dt className="text-sm text-slate-600">{label}</dt>
              <dd className="text-2xl font-semibold text-slate-900" data-count={key}>
                {formatNumber(value)}
              </dd>
            </div>
          ))}
        </dl>
      </CardBody>
      {importing.status === "done" ? (
        <CardFooter>
          {importing.hasRejected ? (
            <a
              href={href("/messaging/contacts/import/:id/rejected.csv", { id: importing.id })}
              className={buttonClass("secondary")}
              download
            >
              <Download className="size-4" aria-hidden /> {m.messaging_import_download_rejected()}
            </a>
          ) : null}
          <ButtonLink to={href("/messaging/contacts")}>{m.messaging_import_see_contacts()}</ButtonLink>
        </CardFooter>
      ) : null}
    </Card>
  );
}

export { PageErrorBoundary as ErrorBoundary };
