import { lazy, Suspense } from "react";
import { data, href, useNavigation, useSearchParams } from "react-router";
import type { Route } from "./+types/index";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { actorOf, formAction } from "~/.server/domains/auth/form-actions";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { findTemplate, listTemplates, readTemplateFilters, templateStatusCounts } from "~/.server/domains/templates/queries";
import { copyTemplate, deleteTemplate, templateInput } from "~/.server/domains/templates/manage";
import { syncOrganisationTemplates } from "~/.server/domains/templates/sync";
import { withStoredSample } from "~/.server/domains/templates/media";
import { templateAccountChoices } from "~/.server/domains/templates/accounts";
import { TemplateListActionSchema } from "~/lib/schemas/templates";
import { renderTemplate } from "~/lib/templates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { TemplateFilters } from "~/components/templates/template-filters";
import { templateColumns } from "~/components/templates/template-columns";
import { TemplateDialogs as ServerTemplateDialogs } from "~/components/templates/template-dialogs";
import { TemplatesHeader } from "~/components/templates/templates-header";
import { Pager, Table } from "~/components/ui/table";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";

// A filtered list with URL dialogs: sent as a document without React (decision 066); app/assets/forms.js makes the open dialog modal and holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "templates:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.templates_title()} | Jumbe` }];

/**
 * The tenant's templates: filters and pages in the URL (a GET form), the view and delete dialogs as
 * `?dialog=view|delete&template=<id>` that the server renders, copy, delete and sync as posts.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
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
  if (selectedId && !selected) throw data(m.templates_not_found(), { status: 404 });
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
  return formAction(args, {
    permission: "templates:manage",
    schema: TemplateListActionSchema,
    invalid: () => {
      throw data(m.templates_unknown_action(), { status: 400 });
    },
    handle: async ({ value: { intent, template: id, confirm }, user: current }) => {
      const actor = actorOf(args, current);
      if (intent === "copy") {
        const copy = await copyTemplate(actor, id);
        if (!copy) throw data(m.templates_not_found(), { status: 404 });
        return redirectWithToast(href("/templates/:id/edit", { id: copy.id }), "success", m.templates_copied({ name: copy.name }));
      }
      if (intent === "delete") {
        if (confirm !== "yes")
          return redirectWithToast(
            `/templates?dialog=delete&template=${encodeURIComponent(id)}`,
            "error",
            m.templates_delete_confirm_first(),
          );
        const result = await deleteTemplate(actor, id);
        if (!result.ok) {
          if (result.status === 404) throw data(m.templates_not_found(), { status: 404 });
          return redirectWithToast(href("/templates"), "error", result.message);
        }
        return redirectWithToast(href("/templates"), "success", result.atMeta ? m.templates_deleted_at_meta() : m.templates_deleted());
      }
      return syncFromMeta(current.organization.id);
    },
  });
}

/** "Sync from Meta": every connected account's templates, said in one toast. */
async function syncFromMeta(organizationId: string) {
  const outcomes = await syncOrganisationTemplates(organizationId);
  if (!outcomes.length) return redirectWithToast(href("/templates"), "error", m.templates_sync_nothing());
  const failed = outcomes.find((o) => o.error);
  if (failed)
    return redirectWithToast(href("/templates"), "error", m.templates_sync_failed({ waba: failed.wabaId, reason: failed.error ?? "" }));
  const sum = (key: "imported" | "updated" | "removed") => outcomes.reduce((n, o) => n + o[key], 0);
  return redirectWithToast(
    href("/templates"),
    "success",
    m.templates_synced({ imported: sum("imported"), updated: sum("updated"), removed: sum("removed") }),
  );
}

// The view and delete dialogs (with the template's preview): only while the URL names one, so in the
// browser a chunk loaded when one opens; the server renders them in place (decision 061).
const TemplateDialogs = import.meta.env.SSR
  ? ServerTemplateDialogs
  : lazy(() => import("~/components/templates/template-dialogs").then((module) => ({ default: module.TemplateDialogs })));

export default function Templates({ loaderData }: Route.ComponentProps) {
  const { filters, page, counts, connected, canManage, selected } = loaderData;
  const navigation = useNavigation();
  // Only the action being submitted says it is working (copying is not "Syncing...").
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const [search] = useSearchParams();
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
  const filtered = !!(filters.q || filters.status || filters.category || filters.language);

  return (
    <div className="space-y-6">
      <TemplatesHeader counts={counts} connected={connected} canManage={canManage} syncing={busy("sync")} />

      <TemplateFilters filters={filters} placeholder={m.templates_filter_placeholder()}>
        <Button type="submit">{m.templates_filter_apply()}</Button>
      </TemplateFilters>

      <Card padding="none">
        <Table
          caption={m.templates_table_caption()}
          columns={templateColumns({ dialogLink, canManage })}
          rows={page.rows}
          rowKey={(row) => row.id}
          empty={
            filtered ? (
              m.templates_empty_filtered()
            ) : (
              <>
                {m.templates_empty()}{" "}
                {canManage ? (
                  <TextLink to={href("/templates/new")} weight="semibold">
                    {m.templates_empty_create()}
                  </TextLink>
                ) : null}
              </>
            )
          }
        />
        <div className="px-4 pb-4">
          <Pager searchParams={search} newer={page.newer} older={page.older} label={m.templates_pages_label()} />
        </div>
      </Card>

      {selected ? (
        <Suspense fallback={null}>
          <TemplateDialogs selected={selected} search={search} canManage={canManage} deleting={busy("delete")} />
        </Suspense>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
