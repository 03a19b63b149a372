import { Form } from "react-router";
import { Link } from "~/components/ui/link";
import { Copy, Eye, Trash2 } from "~/components/ui/icons";
import { Badge } from "~/components/ui/badge";
import type { Column } from "~/components/ui/table";
import type { TemplateRow } from "~/.server/domains/templates/queries";
import { formatWhen } from "~/lib/dates";
import { categoryLabel, languageLabel, templateStatusTone, templateStatusWord } from "~/lib/templates";
import { m } from "~/paraglide/messages";

/**
 * The templates table's columns. `dialogLink` opens a template's view or delete dialog in the URL;
 * copying is a post, offered (with deleting) to those who may manage templates.
 */
export function templateColumns({
  dialogLink,
  canManage,
}: {
  dialogLink: (name: string, id: string) => string;
  canManage: boolean;
}): Column<TemplateRow>[] {
  return [
    {
      key: "name",
      header: m.templates_column_name(),
      cell: (row) => (
        <div className="min-w-0">
          <Link to={dialogLink("view", row.id)} className="font-medium break-all text-slate-900 hover:underline" preventScrollReset>
            {row.name}
          </Link>
          {row.productButton ? (
            <span className="ml-2" title={m.templates_product_label_title()}>
              <Badge tone="info">
                {row.productButton === "MPM" ? m.templates_product_label_mpm() : m.templates_product_label_catalog()}
              </Badge>
            </span>
          ) : null}
          {row.lastError ? <p className="text-xs text-amber-700">{row.lastError}</p> : null}
          {row.status === "rejected" && row.platformRejection ? (
            <p className="text-xs text-red-700">{m.templates_returned_by_jumbe({ reason: row.platformRejection })}</p>
          ) : row.status === "rejected" && row.rejectionReason ? (
            <p className="text-xs text-red-700">{row.rejectionReason}</p>
          ) : null}
        </div>
      ),
    },
    { key: "type", header: m.templates_column_type(), cell: (row) => categoryLabel(row.category), hideOnPhone: true },
    { key: "language", header: m.templates_column_language(), cell: (row) => languageLabel(row.language), hideOnPhone: true },
    {
      key: "status",
      header: m.templates_column_status(),
      cell: (row) => <Badge tone={templateStatusTone(row.status)}>{templateStatusWord(row.status)}</Badge>,
    },
    {
      key: "submitted",
      header: m.templates_column_submitted(),
      cell: (row) => (row.submittedAt ? formatWhen(row.submittedAt) : m.templates_not_submitted()),
      hideOnPhone: true,
    },
    {
      key: "actions",
      header: <span className="sr-only">{m.templates_column_actions()}</span>,
      align: "right",
      cell: (row) => (
        <div className="flex justify-end gap-1">
          <Link
            to={dialogLink("view", row.id)}
            preventScrollReset
            className="rounded p-1.5 text-slate-600 hover:bg-slate-100"
            aria-label={m.templates_view_label({ name: row.name })}
          >
            <Eye className="size-4" aria-hidden />
          </Link>
          {canManage ? (
            <>
              <Form method="post" className="inline">
                <input type="hidden" name="template" value={row.id} />
                <button
                  name="intent"
                  value="copy"
                  className="rounded p-1.5 text-slate-600 hover:bg-slate-100"
                  aria-label={m.templates_copy_label({ name: row.name })}
                >
                  <Copy className="size-4" aria-hidden />
                </button>
              </Form>
              <Link
                to={dialogLink("delete", row.id)}
                preventScrollReset
                className="rounded p-1.5 text-red-600 hover:bg-red-50"
                aria-label={m.templates_delete_label({ name: row.name })}
              >
                <Trash2 className="size-4" aria-hidden />
              </Link>
            </>
          ) : null}
        </div>
      ),
    },
  ];
}
