import { href, Link } from "react-router";
import type { TemplateFigures as Figures } from "~/.server/domains/admin/templates/queries";
import { Badge } from "~/components/ui/badge";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { BarChart } from "~/components/ui/chart";
import { CheckCircle2, Clock, FileText, Hourglass } from "~/components/ui/icons";
import { StatCard } from "~/components/ui/stat-card";
import { formatNumber } from "~/lib/dates";
import { languageLabel, TEMPLATE_CATEGORIES, TEMPLATE_STATUSES, templateStatusLabel, templateStatusTone } from "~/lib/templates";

/** Every organisation's templates counted: the totals, then by status, by type and by language. */
export function TemplateFigures({ figures }: { figures: Figures }) {
  return (
    <>
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
    </>
  );
}
