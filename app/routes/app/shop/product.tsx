import { data, Form, href } from "react-router";
import type { Route } from "./+types/product";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { formAction } from "~/.server/domains/auth/form-actions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalReply, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import { createProduct, getProduct, productImageUrl, updateProduct } from "~/.server/domains/shop";
import { ProductFormSchema, centsToPrice, PRODUCT_DESCRIPTION_MAX, PRODUCT_IMAGE_MAX_BYTES, PRODUCT_NAME_MAX } from "~/lib/schemas/shop";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BackLink } from "~/components/ui/back-link";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, FileField, FormError, SelectField, TextareaField } from "~/components/ui/field";
import { getFormProps, getInputProps, getSelectProps, getTextareaProps } from "~/components/ui/form-state";
import { useServerCheckedForm } from "~/components/ui/use-schema-form";
import { Toast } from "~/components/ui/toast";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// A product's form, new (/shop/products/new) or saved (/shop/products/:id): the server checks every field.
export const handle: PermissionHandle & PageHandle = { permission: "shop:manage", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = ({ data }) => [
  { title: data?.product ? m.shop_product_edit_meta_title({ name: data.product.name }) : m.shop_product_new_meta_title() },
];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const id = args.params.id;
  if (!id) return { product: null };
  const product = await getProduct(current.organization.id, id);
  if (!product) throw data(m.shop_product_not_found(), { status: 404 });
  return {
    product: {
      id: product.id,
      name: product.name,
      description: product.description,
      price: centsToPrice(product.priceCents),
      retailerId: product.retailerId,
      imageUrl: product.imageUrl ?? "",
      // The picture Jumbe keeps (its public address, as Meta gets it).
      storedImage: product.imageKey ? productImageUrl(product) : null,
      availability: product.availability,
      syncState: product.syncState,
      syncError: product.syncError,
    },
  };
}

export async function action(args: Route.ActionArgs) {
  const id = args.params.id;
  return formAction(args, {
    permission: "shop:manage",
    schema: ProductFormSchema,
    handle: async ({ value, submission, user }) => {
      const actor = { organizationId: user.organization.id, userId: user.user.id, meta: requestMeta(args.request, args.context) };
      try {
        const saved = id ? await updateProduct(actor, id, value) : await createProduct(actor, value);
        return redirectWithToast(href("/shop/products"), "success", m.shop_product_saved({ name: saved.name }));
      } catch (error) {
        const refusal = refusalOf(error);
        throwIfNotFound(refusal);
        return refusalReply(submission, refusal);
      }
    },
  });
}

const TEXT = { type: "text" } as const;

export default function ProductPage({ loaderData, actionData }: Route.ComponentProps) {
  const { product } = loaderData;
  const [form, fields] = useServerCheckedForm<{
    name: string;
    description: string;
    price: string;
    retailerId: string;
    imageUrl: string;
    image: File;
    availability: string;
  }>(actionData && "result" in actionData ? actionData.result : undefined, {
    id: product ? `product-${product.id}` : "product-new",
    defaultValue: product
      ? {
          name: product.name,
          description: product.description,
          price: product.price,
          retailerId: product.retailerId,
          imageUrl: product.imageUrl,
          availability: product.availability,
        }
      : { availability: "in stock" },
  });
  return (
    <div className="mx-auto max-w-2xl space-y-6">
      {actionData && "toast" in actionData && actionData.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div>
        <BackLink to={href("/shop/products")}>{m.shop_back_to_products()}</BackLink>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">
          {product ? m.shop_product_edit_title({ name: product.name }) : m.shop_product_new_title()}
        </h1>
        <p className="text-slate-600">{m.shop_product_form_intro()}</p>
        {product?.syncState === "failed" && product.syncError ? (
          <p role="status" className="mt-2 rounded-md border border-red-200 bg-red-50 p-2 text-sm text-red-800">
            {m.shop_product_sync_refused({ reason: product.syncError })}
          </p>
        ) : null}
      </div>
      <Card>
        <Form method="post" encType="multipart/form-data" {...getFormProps(form)} className="grid gap-3">
          <FormError id={form.errorId} errors={form.errors} />
          <Field
            label={m.shop_product_name()}
            markRequired
            maxLength={PRODUCT_NAME_MAX}
            errors={fields.name.errors}
            {...getInputProps(fields.name, TEXT)}
            key={fields.name.key}
          />
          <TextareaField
            label={m.shop_product_description()}
            maxLength={PRODUCT_DESCRIPTION_MAX}
            errors={fields.description.errors}
            {...getTextareaProps(fields.description)}
            key={fields.description.key}
          />
          <Field
            label={m.shop_product_price_kes()}
            markRequired
            inputMode="decimal"
            hint={m.shop_product_price_hint()}
            errors={fields.price.errors}
            {...getInputProps(fields.price, TEXT)}
            key={fields.price.key}
          />
          <Field
            label={m.shop_product_sku()}
            markRequired
            autoComplete="off"
            spellCheck={false}
            hint={m.shop_product_sku_hint()}
            errors={fields.retailerId.errors}
            {...getInputProps(fields.retailerId, TEXT)}
            key={fields.retailerId.key}
          />
          {product?.storedImage ? (
            <img
              src={product.storedImage}
              alt={m.shop_product_image_current()}
              className="h-24 w-24 rounded-md border border-slate-200 object-cover"
            />
          ) : null}
          <FileField
            label={m.shop_product_image_file()}
            name={fields.image.name}
            accept="image/jpeg,image/png"
            hint={m.shop_product_image_file_hint({ max: PRODUCT_IMAGE_MAX_BYTES / 1024 / 1024 })}
            errors={fields.image.errors}
          />
          <Field
            label={m.shop_product_image()}
            hint={m.shop_product_image_hint()}
            errors={fields.imageUrl.errors}
            {...getInputProps(fields.imageUrl, { type: "url" })}
            key={fields.imageUrl.key}
          />
          <SelectField
            label={m.shop_product_availability()}
            errors={fields.availability.errors}
            options={[
              { value: "in stock", label: m.shop_availability_in() },
              { value: "out of stock", label: m.shop_availability_out() },
            ]}
            {...getSelectProps(fields.availability)}
            key={fields.availability.key}
          />
          <div className="flex flex-wrap gap-2">
            <Button type="submit">{m.shop_product_save()}</Button>
            <ButtonLink to={href("/shop/products")} variant="secondary">
              {m.shop_cancel()}
            </ButtonLink>
          </div>
        </Form>
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
