import { useEffect } from "react";
import { Form, href, Link, redirect, useNavigation, useRevalidator } from "react-router";
import { ArrowLeft, Download } from "~/components/ui/icons";
import type { Route } from "./+types/run";
import { requireUserWithPermission } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { readForm } from "~/.server/infrastructure/http/forms";
import { postedTexts } from "~/.server/infrastructure/http/posted-fields";
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

export const handle: PermissionHandle = { permission: "contacts:manage" };

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: `${loaderData?.importing.fileName ?? "Import"} | Import contacts | Jumbe` },
];

/**
 * /messaging/contacts/import/:id: the mapping form (step 2) while the import waits for it, then its
 * progress and report (step 3). Another tenant's id is 404.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "contacts:manage");
  const organizationId = current.organization.id;
  const importing = await loadImport(organizationId, args.params.id);
  const definitions = await attributeDefinitions(organizationId);
  return {
    importing,
    fields: [...definitions.values()].map((d) => ({ value: `attr:${d.key}`, label: `Custom field: ${d.label}` })),
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

export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "contacts:manage");
  const organizationId = current.organization.id;
  const importing = await loadImport(organizationId, args.params.id);
  const form = await readForm(args.request);
  // One choice per column of the file (column0, column1...), named by its position.
  const posted = postedTexts(form, [...importing.columns.map((_, i) => `column${i}`), "duplicates", "consentEvidence"]);
  const mapping: Record<string, string> = {};
  importing.columns.forEach((column, i) => {
    const target = posted[`column${i}`];
    if (target) mapping[column] = target;
  });
  const duplicates = posted.duplicates as DuplicatePolicy;
  const consent = (posted.consentEvidence ?? "").slice(0, EVIDENCE_MAX + 1);
  try {
    await startImport({ organizationId, userId: current.user.id, meta: requestMeta(args.request, args.context) }, importing.id, {
      mapping,
      duplicates,
      consentEvidence: consent,
    });
  } catch (error) {
    return refusalFormError(refusalOf(error), { mapping, duplicates, consent });
  }
  return redirect(href("/messaging/contacts/import/:id", { id: importing.id }));
}

const TARGETS = [
  { value: "", label: "Ignore this column" },
  { value: "name", label: "Name" },
  { value: "phone", label: "Phone number" },
  { value: "tags", label: "Tags (separated by commas)" },
  { value: "language", label: "Language (en or sw)" },
  { value: "notes", label: "Notes" },
];

const DUPLICATE_LABELS: Record<DuplicatePolicy, string> = {
  skip: "Skip it: keep the contact as it is",
  update: "Update it with the file's values",
  merge_tags: "Only add the file's tags to it",
};

export default function ImportRun({ loaderData, actionData }: Route.ComponentProps) {
  const { importing } = loaderData;
  return (
    <div className="space-y-6">
      <div>
        <Link
          to={href("/messaging/contacts/import")}
          className="inline-flex items-center gap-1 text-sm font-medium text-brand-700 hover:underline"
        >
          <ArrowLeft className="size-4" aria-hidden /> Imports
        </Link>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">Import {importing.fileName}</h1>
        <p className="text-slate-600">
          {formatNumber(Math.round(importing.size / 1024))} KB, {importing.columns.length} columns.
        </p>
      </div>
      {importing.status === "uploaded" ? <Mapping loaderData={loaderData} actionData={actionData} /> : <Progress importing={importing} />}
    </div>
  );
}

function Mapping({ loaderData, actionData }: Pick<Route.ComponentProps, "loaderData" | "actionData">) {
  const { importing, fields, suggested, evidenceMax } = loaderData;
  const navigation = useNavigation();
  const chosen = actionData?.mapping ?? suggested;
  const targets = [...TARGETS, ...fields];
  return (
    <Card>
      <CardHeader title="2. Match the columns" description="Say what each column of the file holds. Columns you ignore are not imported." />
      <Form method="post">
        <CardBody className="space-y-5">
          <FormError errors={actionData?.error ? [actionData.error] : undefined} />
          <div className="grid gap-4 sm:grid-cols-2">
            {importing.columns.map((column, i) => (
              <SelectField
                key={column}
                label={`Column “${column}”`}
                name={`column${i}`}
                defaultValue={chosen[column] ?? ""}
                options={targets}
              />
            ))}
          </div>
          <SelectField
            label="When a number is already a contact (or appears twice in the file)"
            name="duplicates"
            defaultValue={actionData?.duplicates ?? "skip"}
            options={DUPLICATE_POLICIES.map((p) => ({ value: p, label: DUPLICATE_LABELS[p] }))}
          />
          <TextareaField
            label="Where consent came from (optional)"
            name="consentEvidence"
            maxLength={evidenceMax}
            defaultValue={actionData?.consent ?? ""}
            hint="For example “Signed paper forms at the Nairobi branch, May 2026”. When given, each imported contact is recorded as opted in, with this as the evidence; it also lets numbers erased earlier be added again."
          />
        </CardBody>
        <CardFooter>
          <Button type="submit" pending={navigation.state === "submitting"} pendingText="Starting...">
            Start import
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
  const counts: [string, number][] = [
    ["Created", importing.created],
    ["Updated", importing.updated],
    ["Skipped", importing.skipped],
    ["Invalid", importing.invalid],
  ];
  return (
    <Card>
      {working ? (
        <noscript>
          <meta httpEquiv="refresh" content="2" />
        </noscript>
      ) : null}
      <CardHeader
        title={importing.status === "done" ? "Import finished" : importing.status === "failed" ? "Import failed" : "3. Importing..."}
        description={
          working
            ? importing.status === "queued"
              ? "Waiting for its turn. This page updates by itself."
              : "Contacts are being added. This page updates by itself; you can leave it and come back."
            : undefined
        }
      />
      <CardBody className="space-y-5">
        <ProgressBar
          label="File read"
          value={importing.bytesRead}
          max={Math.max(importing.size, 1)}
          tone={importing.status === "failed" ? "danger" : "brand"}
        />
        {importing.error ? <FormError errors={[importing.error]} /> : null}
        <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4" aria-live="polite">
          {counts.map(([label, value]) => (
            <div key={label} className="rounded-lg border border-slate-200 p-3">
              <dt className="text-sm text-slate-600">{label}</dt>
              <dd className="text-2xl font-semibold text-slate-900" data-count={label.toLowerCase()}>
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
              <Download className="size-4" aria-hidden /> Download the rejected rows (CSV, with the reason for each)
            </a>
          ) : null}
          <ButtonLink to={href("/messaging/contacts")}>See the contacts</ButtonLink>
        </CardFooter>
      ) : null}
    </Card>
  );
}

export { PageErrorBoundary as ErrorBoundary };
