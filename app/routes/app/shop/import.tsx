import { Form, href } from "react-router";
import type { Route } from "./+types/import";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { multipartBoundary } from "~/.server/infrastructure/http/multipart";
import { refusalFormError, refusalOf } from "~/.server/infrastructure/http/refusal-reply";
import { importProducts, PRODUCT_IMPORT_MAX_BYTES, PRODUCT_IMPORT_MAX_ROWS } from "~/.server/domains/shop";
import { PRODUCT_IMPORT_FIELD } from "~/lib/shop";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BackLink } from "~/components/ui/back-link";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { FileField } from "~/components/ui/field";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Products from a CSV file (decision 138): a document without React; the file is read and checked by the server.
export const handle: PermissionHandle & PageHandle = { permission: "shop:manage", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

/** The header line the import reads (column names, the same in every language). */
const IMPORT_COLUMNS = "sku,name,description,price,image_url,availability";

export const meta: Route.MetaFunction = () => [{ title: m.shop_import_meta_title() }];

export async function loader(args: Route.LoaderArgs) {
  await requireDeclaredUser(args);
  return { maxKb: PRODUCT_IMPORT_MAX_BYTES / 1024, maxRows: PRODUCT_IMPORT_MAX_ROWS };
}

/** The file streamed to the shop's reader (bounded); a file it cannot read answers in words at the form. */
export async function action(args: Route.ActionArgs) {
  const current = await requireDeclaredUser(args);
  const { request, context } = args;
  try {
    const outcome = await importProducts(
      { organizationId: current.organization.id, userId: current.user.id, meta: requestMeta(request, context) },
      { body: request.body, boundary: multipartBoundary(request.headers.get("content-type")) },
    );
    return { outcome };
  } catch (error) {
    return refusalFormError(refusalOf(error));
  }
}

export default function ImportProducts({ loaderData, actionData }: Route.ComponentProps) {
  const outcome = actionData && "outcome" in actionData ? actionData.outcome : null;
  const error = actionData && "error" in actionData ? actionData.error : undefined;
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <div>
        <BackLink to={href("/shop/products")}>{m.shop_back_to_products()}</BackLink>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">{m.shop_import_title()}</h1>
        <p className="text-slate-600">{m.shop_import_intro({ max: loaderData.maxRows, kb: loaderData.maxKb })}</p>
        <p className="mt-1 font-mono text-xs break-words text-slate-600">{IMPORT_COLUMNS}</p>
      </div>
      {outcome ? (
        <Card>
          <CardHeader title={m.shop_import_done({ created: outcome.created, updated: outcome.updated, refused: outcome.refused })} />
          {outcome.errors.length ? (
            <ul className="mt-2 space-y-1 text-sm text-red-800" aria-label={m.shop_import_refused_rows()}>
              {outcome.errors.map((e) => (
                <li key={e.line} className="break-words">
                  {m.shop_import_row_error({ line: e.line, message: e.message })}
                </li>
              ))}
            </ul>
          ) : null}
        </Card>
      ) : null}
      <Card>
        <Form method="post" encType="multipart/form-data" className="grid gap-3">
          <FileField
            label={m.shop_import_file()}
            name={PRODUCT_IMPORT_FIELD}
            accept=".csv,text/csv"
            markRequired
            errors={error ? [error] : undefined}
          />
          <div>
            <Button type="submit">{m.shop_import_submit()}</Button>
          </div>
        </Form>
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
