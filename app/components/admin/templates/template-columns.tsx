import { href } from "react-router";
import type { AdminTemplateRow } from "~/.server/domains/admin/templates/queries";
import { Badge } from "~/components/ui/badge";
import { ButtonLink } from "~/components/ui/button";
import { Name } from "~/components/ui/name";
import type { Column } from "~/components/ui/table";
import { TextLink } from "~/components/ui/text-link";
import { formatWhen } from "~/lib/dates";
import { categoryLabel, languageLabel, templateStatusLabel, templateStatusTone } from "~/lib/templates";

/** The console's table of template submissions: each links to its review. */
export const ADMIN_TEMPLATE_COLUMNS: Column<AdminTemplateRow>[] = [
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
