import { href } from "react-router";
import type { AdminTemplateRow } from "~/.server/domains/admin/templates/queries";
import { Badge } from "~/components/ui/badge";
import { ButtonLink } from "~/components/ui/button";
import { Name } from "~/components/ui/name";
import type { Column } from "~/components/ui/table";
import { TextLink } from "~/components/ui/text-link";
import { formatWhen } from "~/lib/dates";
import { categoryLabel, languageLabel, templateStatusLabel, templateStatusTone } from "~/lib/templates";
import { m } from "~/paraglide/messages";

/** The console's table of template submissions: each links to its review (its words in the request's language). */
export const adminTemplateColumns = (): Column<AdminTemplateRow>[] => [
  {
    key: "name",
    header: m.admin_templates_column_name(),
    sortable: true,
    cell: (r) => <span className="font-medium break-all text-slate-900">{r.name}</span>,
  },
  {
    key: "business",
    header: m.admin_column_business(),
    sortable: true,
    cell: (r) => (
      <TextLink to={`${href("/admin/templates")}?org=${r.organizationId}`}>
        <Name>{r.business}</Name>
      </TextLink>
    ),
  },
  { key: "type", header: m.admin_templates_column_type(), sortable: true, cell: (r) => categoryLabel(r.category), hideOnPhone: true },
  {
    key: "status",
    header: m.admin_column_status(),
    sortable: true,
    cell: (r) => <Badge tone={templateStatusTone(r.status)}>{templateStatusLabel(r.status)}</Badge>,
  },
  {
    key: "submitted",
    header: m.admin_template_submitted(),
    sortable: true,
    cell: (r) => (r.submittedAt ? <time dateTime={r.submittedAt}>{formatWhen(r.submittedAt)}</time> : m.admin_template_not_submitted()),
    hideOnPhone: true,
  },
  {
    key: "language",
    header: m.admin_templates_column_language(),
    sortable: true,
    cell: (r) => languageLabel(r.language),
    hideOnPhone: true,
  },
  {
    key: "review",
    header: <span className="sr-only">{m.admin_review()}</span>,
    align: "right",
    cell: (r) => (
      <ButtonLink to={href("/admin/templates/:id", { id: r.id })} size="sm" variant={r.status === "held" ? "primary" : "secondary"}>
        {m.admin_review()}
        <span className="sr-only"> {r.name}</span>
      </ButtonLink>
    ),
  },
];
