import { data, href } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/products";
import { requireDeclaredUser, type CurrentUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { can } from "~/.server/domains/auth";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { enqueueJob } from "~/.server/infrastructure/jobs/queue";
import { throwIfNotFound, refusalToast } from "~/.server/infrastructure/http/refusal-reply";
import { catalogIdOf, listProducts, removeProduct, SHOP_RECONCILE_QUEUE, type Product } from "~/.server/domains/shop";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { Table, type Column } from "~/components/ui/table";
import { Toast } from "~/components/ui/toast";
import { ShopTabs, syncWords } from "~/components/shop/shop-words";
import { formatKes } from "~/lib/invoice";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { Form } from "react-router";
import { m } from "~/paraglide/messages";

// The shop's products (decision 138): a document without React; the server checks every post.
export const handle: PermissionHandle & PageHandle = { permission: "shop:view", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.shop_products_meta_title() }];

type Row = Pick<Product, "id" | "name" | "retailerId" | "priceCents" | "availability" | "syncState" | "syncError" | "imageUrl">;

/** The products; `?confirm=remove&product=<id>` asks before removing one (another organisation's id is not found). */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const [all, catalogId] = await Promise.all([listProducts(current.organization.id), catalogIdOf(current.organization.id)]);
  const products: Row[] = all.map((p) => ({
    id: p.id,
    name: p.name,
    retailerId: p.retailerId,
    priceCents: p.priceCents,
    availability: p.availability,
    syncState: p.syncState,
    syncError: p.syncError,
    imageUrl: p.imageUrl,
  }));
  const params = args.url.searchParams;
  let removing: Row | null = null;
  if (params.get("confirm") === "remove") {
    removing = products.find((p) => p.id === params.get("product")) ?? null;
    if (!removing) throw data(m.shop_product_not_found(), { status: 404 });
  }
  return { products, catalogId, removing, canManage: can(current.role, "shop:manage") };
}

const RemoveSchema = z.object({ id: postedText, confirm: postedText });
const SyncSchema = z.object({});

export async function action(args: Route.ActionArgs) {
  const actorOf = (current: CurrentUser) => ({
    organizationId: current.organization.id,
    userId: current.user.id,
    meta: requestMeta(args.request, args.context),
  });
  const here = href("/shop/products");
  return intentAction(args, {
    permission: "shop:manage",
    intents: {
      remove: intent(RemoveSchema, async ({ value, user, intent }) => {
        if (value.confirm !== "yes") return formFailure(null, 400, m.shop_product_confirm_first(), { intent });
        const gone = await removeProduct(actorOf(user), value.id);
        return redirectWithToast(here, "success", m.shop_product_removed({ name: gone.name }));
      }),
      sync: intent(SyncSchema, async ({ user }) => {
        await enqueueJob(
          SHOP_RECONCILE_QUEUE,
          { organizationId: user.organization.id },
          { uniqueKey: `shop-reconcile:${user.organization.id}` },
        );
        return redirectWithToast(here, "success", m.shop_sync_queued());
      }),
    },
    refused: (refusal, intent) => {
      throwIfNotFound(refusal);
      return refusalToast(refusal, { intent });
    },
    unknown: () => {
      throw data(m.shop_unknown_action(), { status: 400 });
    },
  });
}

export default function Products({ loaderData, actionData }: Route.ComponentProps) {
  const { products, catalogId, removing, canManage } = loaderData;
  const here = href("/shop/products");
  const columns: Column<Row>[] = [
    {
      key: "name",
      header: m.shop_product_name(),
      cell: (p) => (
        <span className="block min-w-0 break-words">
          <span className="font-medium text-slate-900">{p.name}</span>
          <span className="block font-mono text-xs text-slate-500">{p.retailerId}</span>
        </span>
      ),
    },
    {
      key: "price",
      header: m.shop_product_price(),
      align: "right",
      cell: (p) => <span className="tabular-nums">{formatKes(p.priceCents)}</span>,
    },
    {
      key: "availability",
      header: m.shop_product_availability(),
      cell: (p) => (p.availability === "in stock" ? m.shop_availability_in() : m.shop_availability_out()),
    },
    {
      key: "sync",
      header: m.shop_product_sync(),
      cell: (p) => (
        <span className="block max-w-xs">
          <Badge tone={p.syncState === "synced" ? "success" : p.syncState === "failed" ? "danger" : "warning"}>
            {syncWords(p.syncState)}
          </Badge>
          {p.syncState === "failed" && p.syncError ? (
            <span className="mt-1 block text-xs break-words text-red-700">{p.syncError}</span>
          ) : null}
        </span>
      ),
    },
    ...(canManage
      ? [
          {
            key: "actions",
            header: <span className="sr-only">{m.shop_product_actions()}</span>,
            align: "right" as const,
            cell: (p: Row) => (
              <span className="inline-flex flex-wrap justify-end gap-2">
                <ButtonLink
                  to={href("/shop/products/:id", { id: p.id })}
                  variant="secondary"
                  size="sm"
                  aria-label={m.shop_product_edit_label({ name: p.name })}
                >
                  {m.shop_product_edit()}
                </ButtonLink>
                <ButtonLink
                  to={`?confirm=remove&product=${p.id}`}
                  variant="secondary"
                  size="sm"
                  aria-label={m.shop_product_remove_label({ name: p.name })}
                >
                  {m.shop_product_remove()}
                </ButtonLink>
              </span>
            ),
          },
        ]
      : []),
  ];
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div>
        <h1 className="text-2xl font-bold tracking-tight">{m.shop_title()}</h1>
        <p className="text-slate-600">{m.shop_products_intro()}</p>
      </div>
      <ShopTabs />
      <Card padding="none">
        <div className="flex flex-wrap items-start justify-between gap-3 px-4 pt-4">
          <CardHeader
            title={m.shop_products_title()}
            description={catalogId ? m.shop_products_catalog({ id: catalogId }) : m.shop_products_no_catalog()}
          />
          {canManage ? (
            <div className="flex flex-wrap gap-2">
              <ButtonLink to={href("/shop/products/new")} size="sm">
                {m.shop_product_add()}
              </ButtonLink>
              <ButtonLink to={href("/shop/products/import")} variant="secondary" size="sm">
                {m.shop_import_link()}
              </ButtonLink>
              <Form method="post">
                <Button type="submit" name="intent" value="sync" variant="secondary" size="sm">
                  {m.shop_sync_now()}
                </Button>
              </Form>
            </div>
          ) : null}
        </div>
        <Table caption={m.shop_products_title()} columns={columns} rows={products} rowKey={(p) => p.id} empty={m.shop_products_empty()} />
        {removing ? (
          <div className="px-4 pb-4">
            <ConfirmPanel
              title={m.shop_product_remove_title({ name: removing.name })}
              intent="remove"
              confirmLabel={m.shop_product_remove_confirm()}
              cancelTo={here}
              fields={{ id: removing.id }}
            >
              {m.shop_product_remove_body()}
            </ConfirmPanel>
          </div>
        ) : null}
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
