import { data, Form, href, Link, useNavigation, useSearchParams } from "react-router";
import { Copy, Eye, Plus, RefreshCw, Trash2 } from "~/components/ui/icons";
import type { Route } from "./+types/index";
import { can, requireUserWithPermission } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { readForm } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import {
  findTemplate,
  listTemplates,
  readTemplateFilters,
  templateStatusCounts,
  type TemplateRow,
} from "~/.server/domains/templates/queries";
import { copyTemplate, deleteTemplate, templateInput } from "~/.server/domains/templates/manage";
import { syncOrganisationTemplates } from "~/.server/domains/templates/sync";
import { withStoredSample } from "~/.server/domains/templates/media";
import { templateAccountChoices } from "~/.server/domains/templates/accounts";
import { categoryLabel, HELD_EXPLANATION, languageLabel, renderTemplate, templateStatusTone, templateStatusWord } from "~/lib/templates";
import { formatWhen } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { TemplateFilters } from "~/components/templates/template-filters";
import { closeDialogHref, UrlDialog } from "~/components/ui/dialog";
import { Pager, Table, type Column } from "~/components/ui/table";
import { MessagePreview } from "~/components/templates/message-preview";
import type { PermissionHandle } from "~/lib/permissions";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";

export const handle: PermissionHandle = { permission: "templates:view" };

export const meta: Route.MetaFunction = () => [{ title: "Message Templates | Jumbe" }];

/**
 * The tenant's templates: filters and pages in the URL (a GET form), the view and delete dialogs as
 * `?dialog=view|delete&template=<id>` that the server renders, copy, delete and sync as posts.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "templates:view");
  const organizationId = current.organization.id;
  const params = args.url.searchParams;
  const filters = readTemplateFilters(params);
  const dialog = params.get("dialog");
  const selectedId = dialog === "view" || dialog === "delete" ? params.get("template") : null;
  const [page, counts, accounts, selected] = await Promise.all([
    listTemplates(organizationId, filters, { after: params.get("after"), before: params.get("before") }),
    templateStatusCounts(organizationId),
    templateAccountChoices(organizationId),
    selectedId ? findTemplate(organizationId, selectedId) : undefined,
  ]);
  if (selectedId && !selected) throw data("Template not found.", { status: 404 });
  return {
    filters,
    page,
    counts,
    connected: accounts.length > 0,
    canManage: can(current.role, "templates:manage"),
    selected: selected
      ? {
          id: selected.id,
          name: selected.name,
          status: selected.status,
          category: selected.category,
          previousCategory: selected.previousCategory,
          language: selected.language,
          rejectionReason: selected.rejectionReason,
          platformRejection: selected.platformRejection,
          qualityScore: selected.qualityScore,
          lastError: selected.lastError,
          wabaId: selected.wabaId,
          atMeta: selected.metaTemplateId !== null,
          submittedAt: selected.submittedAt?.toISOString() ?? null,
          preview: renderTemplate(await withStoredSample(organizationId, selected.id, templateInput(selected))),
        }
      : null,
  };
}

export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "templates:manage");
  const form = await readForm(args.request);
  const intent = form.get("intent");
  const actor = { organizationId: current.organization.id, userId: current.user.id, meta: requestMeta(args.request, args.context) };
  const id = String(form.get("template") ?? "");
  if (intent === "copy") {
    const copy = await copyTemplate(actor, id);
    if (!copy) throw data("Template not found.", { status: 404 });
    return redirectWithToast(href("/templates/:id/edit", { id: copy.id }), "success", `Copied as ${copy.name}. Change it and submit it.`);
  }
  if (intent === "delete") {
    if (form.get("confirm") !== "yes")
      return redirectWithToast(`/templates?dialog=delete&template=${encodeURIComponent(id)}`, "error", "Confirm the deletion first.");
    const result = await deleteTemplate(actor, id);
    if (!result.ok) {
      if (result.status === 404) throw data("Template not found.", { status: 404 });
      return redirectWithToast(href("/templates"), "error", result.message);
    }
    return redirectWithToast(href("/templates"), "success", result.atMeta ? "Template deleted here and at Meta." : "Template deleted.");
  }
  if (intent === "sync") {
    const outcomes = await syncOrganisationTemplates(current.organization.id);
    if (!outcomes.length)
      return redirectWithToast(href("/templates"), "error", "Connect a WhatsApp Business account first: there is nothing to sync.");
    const failed = outcomes.find((o) => o.error);
    if (failed) return redirectWithToast(href("/templates"), "error", `Sync from Meta failed for ${failed.wabaId}: ${failed.error}`);
    const sum = (key: "imported" | "updated" | "removed") => outcomes.reduce((n, o) => n + o[key], 0);
    return redirectWithToast(
      href("/templates"),
      "success",
      `Synced from Meta: ${sum("imported")} imported, ${sum("updated")} updated, ${sum("removed")} removed.`,
    );
  }
  throw data("Unknown action.", { status: 400 });
}

export default function Templates({ loaderData }: Route.ComponentProps) {
  const { filters, page, counts, connected, canManage, selected } = loaderData;
  const navigation = useNavigation();
  // Only the action being submitted says it is working (copying is not "Syncing...").
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const params = new URLSearchParams();
  if (filters.q) params.set("q", filters.q);
  if (filters.status) params.set("status", filters.status);
  if (filters.category) params.set("type", filters.category);
  if (filters.language) params.set("language", filters.language);
  const dialogLink = (name: string, id: string) => {
    const next = new URLSearchParams(params);
    next.set("dialog", name);
    next.set("template", id);
    return `?${next.toString()}`;
  };
  const total = Object.values(counts).reduce((a: number, b) => a + Number(b), 0);
  const filtered = !!(filters.q || filters.status || filters.category || filters.language);

  const columns: Column<TemplateRow>[] = [
    {
      key: "name",
      header: "Name",
      cell: (row) => (
        <div className="min-w-0">
          <Link to={dialogLink("view", row.id)} className="font-medium break-all text-slate-900 hover:underline" preventScrollReset>
            {row.name}
          </Link>
          {row.lastError ? <p className="text-xs text-amber-700">{row.lastError}</p> : null}
          {row.status === "rejected" && row.platformRejection ? (
            <p className="text-xs text-red-700">Returned by Jumbe: {row.platformRejection}</p>
          ) : row.status === "rejected" && row.rejectionReason ? (
            <p className="text-xs text-red-700">{row.rejectionReason}</p>
          ) : null}
        </div>
      ),
    },
    { key: "type", header: "Type", cell: (row) => categoryLabel(row.category), hideOnPhone: true },
    { key: "language", header: "Language", cell: (row) => languageLabel(row.language), hideOnPhone: true },
    {
      key: "status",
      header: "Status",
      cell: (row) => <Badge tone={templateStatusTone(row.status)}>{templateStatusWord(row.status)}</Badge>,
    },
    {
      key: "submitted",
      header: "Date submitted",
      cell: (row) => (row.submittedAt ? formatWhen(row.submittedAt) : "Not submitted"),
      hideOnPhone: true,
    },
    {
      key: "actions",
      header: <span className="sr-only">Actions</span>,
      align: "right",
      cell: (row) => (
        <div className="flex justify-end gap-1">
          <Link
            to={dialogLink("view", row.id)}
            preventScrollReset
            className="rounded p-1.5 text-slate-600 hover:bg-slate-100"
            aria-label={`View ${row.name}`}
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
                  aria-label={`Copy ${row.name}`}
                >
                  <Copy className="size-4" aria-hidden />
                </button>
              </Form>
              <Link
                to={dialogLink("delete", row.id)}
                preventScrollReset
                className="rounded p-1.5 text-red-600 hover:bg-red-50"
                aria-label={`Delete ${row.name}`}
              >
                <Trash2 className="size-4" aria-hidden />
              </Link>
            </>
          ) : null}
        </div>
      ),
    },
  ];

  const [search] = useSearchParams();

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <PageTitle>Message Templates</PageTitle>
          <p className="text-slate-600">
            Outside the 24-hour service window, WhatsApp only delivers templates Meta approved. {total} template{total === 1 ? "" : "s"}:{" "}
            {counts.approved} approved, {counts.pending} pending{counts.held ? `, ${counts.held} held for review` : ""}, {counts.rejected}{" "}
            rejected, {counts.draft} draft
            {counts.draft === 1 ? "" : "s"}.
          </p>
        </div>
        {canManage ? (
          <div className="flex flex-wrap gap-2">
            {connected ? (
              <Form method="post">
                <Button type="submit" name="intent" value="sync" variant="secondary" pending={busy("sync")} pendingText="Syncing...">
                  <RefreshCw className="size-4" aria-hidden /> Sync from Meta
                </Button>
              </Form>
            ) : null}
            <ButtonLink to={href("/templates/new")}>
              <Plus className="size-4" aria-hidden /> Create template
            </ButtonLink>
          </div>
        ) : null}
      </div>

      {!connected ? (
        <p className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          No WhatsApp Business account is connected, so templates can be saved as drafts but not submitted to Meta yet.{" "}
          <Link to={href("/whatsapp")} className="font-semibold underline">
            Connect WhatsApp
          </Link>
        </p>
      ) : null}

      <TemplateFilters filters={filters} placeholder="Template name">
        <Button type="submit">Apply filters</Button>
      </TemplateFilters>

      <Card padding="none">
        <Table
          caption="Message templates"
          columns={columns}
          rows={page.rows}
          rowKey={(row) => row.id}
          empty={
            filtered ? (
              "No templates match these filters."
            ) : (
              <>
                No templates yet.{" "}
                {canManage ? (
                  <TextLink to={href("/templates/new")} weight="semibold">
                    Create your first template
                  </TextLink>
                ) : null}
              </>
            )
          }
        />
        <div className="px-4 pb-4">
          <Pager searchParams={search} newer={page.newer} older={page.older} label="Template pages" />
        </div>
      </Card>

      {selected ? (
        <>
          <UrlDialog
            name="view"
            searchParams={search}
            title={selected.name}
            description={`${categoryLabel(selected.category)} · ${languageLabel(selected.language)}`}
          >
            <div className="space-y-3">
              <p className="flex flex-wrap items-center gap-2 text-sm">
                <Badge tone={templateStatusTone(selected.status)}>{templateStatusWord(selected.status)}</Badge>
                {selected.submittedAt ? <span className="text-slate-600">Submitted {formatWhen(selected.submittedAt)}</span> : null}
                {selected.qualityScore ? <span className="text-slate-600">Quality: {selected.qualityScore}</span> : null}
              </p>
              {selected.previousCategory ? (
                <p className="text-sm text-amber-800">
                  Meta moved it from {categoryLabel(selected.previousCategory)} to {categoryLabel(selected.category)}.
                </p>
              ) : null}
              {selected.status === "held" ? <p className="text-sm text-sky-800">{HELD_EXPLANATION}</p> : null}
              {selected.status === "rejected" && selected.platformRejection ? (
                <p className="text-sm text-red-700">Returned by Jumbe&apos;s review: {selected.platformRejection}</p>
              ) : null}
              {selected.rejectionReason ? <p className="text-sm text-red-700">Rejected: {selected.rejectionReason}</p> : null}
              {selected.lastError ? <p className="text-sm text-amber-800">{selected.lastError}</p> : null}
              <MessagePreview message={selected.preview} />
              <div className="flex flex-wrap gap-2">
                <ButtonLink to={`${href("/preview")}?template=${selected.id}`} variant="secondary" size="sm">
                  Preview with your values
                </ButtonLink>
                {canManage && ["draft", "rejected", "paused"].includes(selected.status) ? (
                  <ButtonLink to={href("/templates/:id/edit", { id: selected.id })} size="sm">
                    {selected.status === "draft" ? "Edit and submit" : "Edit and resubmit"}
                  </ButtonLink>
                ) : null}
              </div>
            </div>
          </UrlDialog>
          <UrlDialog
            name="delete"
            searchParams={search}
            title={`Delete ${selected.name}?`}
            description={
              selected.atMeta
                ? "It is deleted at Meta too, and Meta keeps its name from being reused for 30 days."
                : "The draft is removed."
            }
          >
            <Form method="post" className="flex justify-end gap-2">
              <input type="hidden" name="template" value={selected.id} />
              <input type="hidden" name="confirm" value="yes" />
              <ButtonLink to={closeDialogHref(search)} variant="secondary" preventScrollReset replace>
                Cancel
              </ButtonLink>
              <Button type="submit" name="intent" value="delete" variant="danger" pending={busy("delete")} pendingText="Deleting...">
                <Trash2 className="size-4" aria-hidden /> Delete
              </Button>
            </Form>
          </UrlDialog>
        </>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
