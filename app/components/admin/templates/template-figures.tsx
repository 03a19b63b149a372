import { href } from "react-router";
import { Link } from "~/components/ui/link";
import type { TemplateFigures as Figures } from "~/.server/domains/admin/templates/queries";
import { Badge } from "~/components/ui/badge";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { BarChart } from "~/components/ui/chart";
import { CheckCircle2, Clock, FileText, Hourglass } from "~/components/ui/icons";
import { StatCard } from "~/components/ui/stat-card";
import { formatNumber } from "~/lib/dates";
import { languageLabel, TEMPLATE_CATEGORIES, TEMPLATE_STATUSES, templateStatusLabel, templateStatusTone } from "~/lib/templates";
import { m } from "~/paraglide/messages";
import { byCount } from "~/lib/intl";

/** Every organisation's templates counted: the totals, then by status, by type and by language. */
export function TemplateFigures({ figures }: { figures: Figures }) {
  return (
    <>
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard label={m.admin_figures_total()} value={formatNumber(figures.total)} icon={FileText} />
        <StatCard
          label={m.admin_review_waiting()}
          value={formatNumber(figures.byStatus.held)}
          icon={Hourglass}
          hint={byCount(
            figures.heldOrganisations,
            () => m.admin_figures_held_one({ count: formatNumber(figures.heldOrganisations) }),
            () => m.admin_figures_held_other({ count: formatNumber(figures.heldOrganisations) }),
          )}
          href={`${href("/admin/templates")}?status=held&sort=submitted&dir=asc`}
        />
        <StatCard
          label={m.admin_figures_pending()}
          value={formatNumber(figures.byStatus.pending)}
          icon={Clock}
          href={`${href("/admin/templates")}?status=pending`}
        />
        <StatCard
          label={m.admin_figures_approved()}
          value={formatNumber(figures.byStatus.approved)}
          icon={CheckCircle2}
          href={`${href("/admin/templates")}?status=approved`}
        />
      </div>

      <div className="grid gap-4 lg:grid-cols-3">
        <Card>
          <CardHeader title={m.admin_users_by_status()} />
          <CardBody>
            <ul className="space-y-1.5 text-sm" aria-label={m.admin_figures_by_status_label()}>
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
          <CardHeader title={m.admin_figures_by_type()} />
          <CardBody>
            <BarChart
              title={m.admin_figures_by_type_label()}
              labelHeader={m.admin_templates_column_type()}
              valueHeader={m.admin_tab_templates()}
              height={150}
              data={TEMPLATE_CATEGORIES.map((c) => ({ label: c.type, value: figures.byCategory[c.value] }))}
              formatValue={formatNumber}
            />
          </CardBody>
        </Card>
        <Card>
          <CardHeader title={m.admin_figures_by_language()} />
          <CardBody>
            <BarChart
              title={m.admin_figures_by_language_label()}
              labelHeader={m.admin_templates_column_language()}
              valueHeader={m.admin_tab_templates()}
              height={150}
              data={figures.byLanguage.map((l) => ({
                label: l.language === "other" ? m.admin_figures_other_language() : languageLabel(l.language),
                value: l.count,
              }))}
              formatValue={formatNumber}
            />
          </CardBody>
        </Card>
      </div>
    </>
  );
}
