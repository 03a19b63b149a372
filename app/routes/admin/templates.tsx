import { data, Form, href, Link, useNavigation, useSearchParams } from "react-router";
import type { Route } from "./+types/templates";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { readForm } from "~/.server/infrastructure/http/forms";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import {
  adminTemplateFigures,
  adminTemplatePage,
  findOrganisationForHold,
  heldOrganisations,
  heldQueue,
  readAdminTemplateFilters,
  type AdminTemplateRow,
} from "~/.server/domains/admin/templates/queries";
import { setTemplateHold } from "~/.server/domains/admin/templates/review";
import { holdsNewOrganisations, setHoldNewOrganisations } from "~/.server/domains/admin/templates/new-organisations";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { BarChart } from "~/components/ui/chart";
import { Field, RadioGroupField } from "~/components/ui/field";
import { TemplateFilters } from "~/components/templates/template-filters";
import { CheckCircle2, Clock, FileText, Hourglass, ShieldAlert } from "~/components/ui/icons";
import { StatCard } from "~/components/ui/stat-card";
import { Pager, pagerOrder, Table, type Column } from "~/components/ui/table";
import { Name } from "~/components/ui/name";
import { formatNumber, formatWhen } from "~/lib/dates";
import { withoutBidiControls } from "~/lib/names";
import {
  categoryLabel,
  languageLabel,
  TEMPLATE_CATEGORIES,
  TEMPLATE_STATUSES,
  templateStatusLabel,
  templateStatusTone,
} from "~/lib/templates";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";

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

/**
 * Holding or releasing an organisation's template submissions (audited: template.hold /
 * template.release), and the platform setting that holds new organisations' from their sign-up
 * (new-organisations, hold on or off; audited: template.hold_new_organisations /
 * template.release_new_organisations).
 */
export async function action(args: Route.ActionArgs) {
  const current = await requirePlatformAdmin(args);
  const scope = platformScope(current);
  const form = await readForm(args.request);
  const intent = form.get("intent");
  const meta = requestMeta(args.request, args.context);
  if (intent === "new-organisations") {
    const hold = form.get("hold");
    if (hold !== "on" && hold !== "off")
      return data({ holdNewError: "Choose whether new organisations' submissions are held." }, { status: 400 });
    const on = hold === "on";
    const changed = await setHoldNewOrganisations(scope, current, meta, on, String(form.get("reason") ?? ""));
    const message = on
      ? changed
        ? "New organisations' template submissions are now held for review from their sign-up."
        : "New organisations' template submissions were already held for review."
      : changed
        ? "New organisations' template submissions go straight to Meta again."
        : "New organisations' template submissions were not held.";
    return redirectWithToast(href("/admin/templates"), "success", message);
  }
  if (intent !== "hold" && intent !== "release") throw data("Unknown action.", { status: 400 });
  const who = String(form.get("organisation") ?? "").trim();
  if (!who) return data({ holdError: "Enter the organisation's business ID (JMB-...) or a member's e-mail." }, { status: 400 });
  const organisation = await findOrganisationForHold(scope, who);
  if (!organisation) return data({ holdError: `No organisation has the business ID or member e-mail "${who}".` }, { status: 400 });
  const on = intent === "hold";
  const changed = await setTemplateHold(scope, current, meta, organisation.id, on, String(form.get("reason") ?? ""));
  const back = String(form.get("back") ?? "") === "org" ? `${href("/admin/templates")}?org=${organisation.id}` : href("/admin/templates");
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

  const columns: Column<AdminTemplateRow>[] = [
    { key: "name", header: "Name", sortable: true, cell: (r) => <span className="font-medium break-all text-slate-900">{r.name}</span> },
    {
      key: "business",
      header: "Business",
      sortable: true,
      cell: (r) => (
        <TextLink to={`${href("/admin/templates")}?org=${r.organizationId}`}>
          <Name>{r.business}</Name>
        </TextLink>
      ),
    },
    { key: "type", header: "Type", sortable: true, cell: (r) => categoryLabel(r.category), hideOnPhone: true },
    {
      key: "status",
      header: "Status",
      sortable: true,
      cell: (r) => <Badge tone={templateStatusTone(r.status)}>{templateStatusLabel(r.status)}</Badge>,
    },
    {
      key: "submitted",
      header: "Submitted",
      sortable: true,
      cell: (r) => (r.submittedAt ? <time dateTime={r.submittedAt}>{formatWhen(r.submittedAt)}</time> : "Not submitted"),
      hideOnPhone: true,
    },
    { key: "language", header: "Language", sortable: true, cell: (r) => languageLabel(r.language), hideOnPhone: true },
    {
      key: "review",
      header: <span className="sr-only">Review</span>,
      align: "right",
      cell: (r) => (
        <ButtonLink to={href("/admin/templates/:id", { id: r.id })} size="sm" variant={r.status === "held" ? "primary" : "secondary"}>
          Review<span className="sr-only"> {r.name}</span>
        </ButtonLink>
      ),
    },
  ];

  return (
    <div className="space-y-6">
      <div>
        <PageTitle>Templates</PageTitle>
        <p className="mt-1 text-slate-600">
          Every organisation&apos;s message templates. Organisations held for review send their submissions to Jumbe first: approve to send
          one on to Meta, or return it with a reason.
        </p>
      </div>

      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard label="Total templates" value={formatNumber(figures.total)} icon={FileText} />
        <StatCard
          label="Waiting for review"
          value={formatNumber(figures.byStatus.held)}
          icon={Hourglass}
          hint={`${formatNumber(figures.heldOrganisations)} organisation${figures.heldOrganisations === 1 ? "" : "s"} held`}
          href={`${href("/admin/templates")}?status=held&sort=submitted&dir=asc`}
        />
        <StatCard
          label="Pending at Meta"
          value={formatNumber(figures.byStatus.pending)}
          icon={Clock}
          href={`${href("/admin/templates")}?status=pending`}
        />
        <StatCard
          label="Approved"
          value={formatNumber(figures.byStatus.approved)}
          icon={CheckCircle2}
          href={`${href("/admin/templates")}?status=approved`}
        />
      </div>

      <div className="grid gap-4 lg:grid-cols-3">
        <Card>
          <CardHeader title="By status" />
          <CardBody>
            <ul className="space-y-1.5 text-sm" aria-label="Templates by status">
              {TEMPLATE_STATUSES.map((status) => (
                <li key={status} className="flex items-center justify-between gap-2">
                  <Link to={`${href("/admin/templates")}?status=${status}`} className="hover:underline">
                    <Badge tone={templateStatusTone(status)}>{templateStatusLabel(status)}</Badge>
                  </Link>
                  <span className="font-medium tabular-nums" data-testid={`status-${status}`}>
                    {formatNumber(figures.byStatus[status])}
                  </span>
                </li>
              ))}
            </ul>
          </CardBody>
        </Card>
        <Card>
          <CardHeader title="By type" />
          <CardBody>
            <BarChart
              title="Templates by type"
              labelHeader="Type"
              valueHeader="Templates"
              height={150}
              data={TEMPLATE_CATEGORIES.map((c) => ({ label: c.type, value: figures.byCategory[c.value] }))}
              formatValue={formatNumber}
            />
          </CardBody>
        </Card>
        <Card>
          <CardHeader title="By language" />
          <CardBody>
            <BarChart
              title="Templates by language"
              labelHeader="Language"
              valueHeader="Templates"
              height={150}
              data={figures.byLanguage.map((l) => ({
                label: l.language === "other" ? "Other" : languageLabel(l.language),
                value: l.count,
              }))}
              formatValue={formatNumber}
            />
          </CardBody>
        </Card>
      </div>

      {queue.length ? (
        <Card>
          <CardHeader
            title="Waiting for review"
            description="Held submissions, the longest waiting first. They reach Meta only when approved."
            actions={
              <ButtonLink to={`${href("/admin/templates")}?status=held&sort=submitted&dir=asc`} size="sm" variant="secondary">
                All held templates
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
                      {t.submittedAt ? ` · submitted ${formatWhen(t.submittedAt)}` : ""}
                    </span>
                  </span>
                  <ButtonLink to={href("/admin/templates/:id", { id: t.id })} size="sm">
                    Review<span className="sr-only"> {t.name}</span>
                  </ButtonLink>
                </li>
              ))}
            </ul>
          </CardBody>
        </Card>
      ) : null}

      {organisation ? (
        <Card aria-labelledby="org-hold">
          <CardHeader
            id="org-hold"
            title={<Name>{organisation.name}</Name>}
            description={
              organisation.templateReview
                ? "Its template submissions are held: Jumbe reviews each before it goes to Meta."
                : "Its template submissions go straight to Meta."
            }
          />
          <CardBody>
            <Form method="post" className="flex flex-wrap items-end gap-3">
              <input type="hidden" name="organisation" value={organisation.id} />
              <input type="hidden" name="back" value="org" />
              <Field label="Reason (for the audit log)" name="reason" maxLength={1000} className="min-w-64 flex-1" />
              {organisation.templateReview ? (
                <Button type="submit" name="intent" value="release" variant="secondary" pending={busy("release")}>
                  Release: send straight to Meta
                </Button>
              ) : (
                <Button type="submit" name="intent" value="hold" pending={busy("hold")}>
                  <ShieldAlert className="size-4" aria-hidden /> Hold submissions for review
                </Button>
              )}
            </Form>
          </CardBody>
        </Card>
      ) : null}

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
          columns={columns}
          rows={page.rows}
          rowKey={(r) => r.id}
          searchParams={searchParams}
          empty={filtered ? "No templates match these filters." : "No templates yet."}
        />
        <div className="px-4 pb-4">
          <Pager searchParams={searchParams} newer={page.newer} older={page.older} label="Template pages" order={submissionOrder} />
        </div>
      </Card>

      <Card aria-labelledby="new-organisations">
        <CardHeader
          id="new-organisations"
          title="New organisations"
          description="A platform setting: when it is on, every organisation made by sign-up starts with its template submissions held for review. Organisations already signed up, and members joining by invitation, are not affected."
          actions={
            <span data-testid="hold-new-state">
              <Badge tone={holdNew ? "warning" : "success"}>{holdNew ? "Held for review" : "Straight to Meta"}</Badge>
            </span>
          }
        />
        <CardBody>
          <p className="mb-3 text-sm text-slate-700">
            {holdNew
              ? "New organisations' template submissions are held: Jumbe reviews each before it goes to Meta, until the organisation is released."
              : "New organisations' template submissions go straight to Meta."}
          </p>
          {/* Remounted when the setting changes, so the checked option follows it after a save. */}
          <Form method="post" key={String(holdNew)} className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-start">
            <RadioGroupField
              legend="Hold new organisations' template submissions"
              name="hold"
              defaultValue={holdNew ? "on" : "off"}
              errors={actionData && "holdNewError" in actionData && actionData.holdNewError ? [actionData.holdNewError] : undefined}
              options={[
                { value: "on", label: "On", description: "Held for Jumbe's review from their sign-up." },
                { value: "off", label: "Off", description: "Straight to Meta." },
              ]}
            />
            <Field label="Reason (for the audit log)" name="reason" maxLength={1000} />
            <Button type="submit" name="intent" value="new-organisations" className="sm:mt-6" pending={busy("new-organisations")}>
              Save setting
            </Button>
          </Form>
        </CardBody>
      </Card>

      <Card aria-labelledby="held-organisations">
        <CardHeader
          id="held-organisations"
          title="Organisations held for review"
          description="New organisations can be held by an administrator. Jumbe holds an organisation itself when Meta flags or disables one of its templates, or rejects one as abusive or a scam."
        />
        <CardBody className="space-y-4">
          {held.length ? (
            <ul className="divide-y divide-slate-100">
              {held.map((o) => (
                <li key={o.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
                  <span>
                    <TextLink to={`${href("/admin/templates")}?org=${o.id}`} weight="medium">
                      <Name>{o.name}</Name>
                    </TextLink>{" "}
                    <span className="text-slate-600">
                      {o.businessId} · {o.held} waiting
                    </span>
                  </span>
                  <Form method="post">
                    <input type="hidden" name="organisation" value={o.id} />
                    <Button type="submit" name="intent" value="release" size="sm" variant="secondary">
                      Release<span className="sr-only"> {withoutBidiControls(o.name)}</span>
                    </Button>
                  </Form>
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-sm text-slate-600">No organisation is held: every submission goes straight to Meta.</p>
          )}
          <Form method="post" className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-start" aria-label="Hold an organisation">
            <Field
              label="Organisation to hold"
              name="organisation"
              placeholder="JMB-... or owner@example.co.ke"
              hint="Its business ID or a member's e-mail."
              errors={actionData && "holdError" in actionData && actionData.holdError ? [actionData.holdError] : undefined}
              markRequired
            />
            <Field label="Reason (for the audit log)" name="reason" maxLength={1000} />
            <Button type="submit" name="intent" value="hold" className="sm:mt-6" pending={busy("hold")}>
              Hold submissions
            </Button>
          </Form>
        </CardBody>
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
