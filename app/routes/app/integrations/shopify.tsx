import { data, Form, href } from "react-router";
import type { Route } from "./+types/shopify";
import * as z from "zod/mini";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { postedAll, postedFirst } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalToast } from "~/.server/infrastructure/http/refusal-reply";
import {
  approvedTemplates,
  connectedShop,
  listMappings,
  recentEvents,
  saveMapping,
  type MappingView,
  type TemplateChoice,
} from "~/.server/domains/integrations/shopify/mappings";
import { reasonWords } from "~/.server/domains/integrations/shopify/process";
import { orderPaymentWords } from "~/.server/domains/integrations/shopify/order-payments";
import { saveAskPayment, shopifySettingsOf } from "~/.server/domains/integrations/shopify/payment-setting";
import { importViewOf, queueShopifyImport } from "~/.server/domains/integrations/shopify/product-import";
import { missingShopifyScopes } from "~/.server/domains/integrations/shopify/scopes";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { DELAY_MINUTES, SHOPIFY_FIELDS, templateBlockWords } from "~/lib/shopify";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { PageTitle } from "~/components/ui/page-title";
import { BackLink } from "~/components/ui/back-link";
import { Toast } from "~/components/ui/toast";
import { Card } from "~/components/ui/card";
import { Badge } from "~/components/ui/badge";
import { RecentEvents } from "~/components/integrations/shopify-events";
import { AskPaymentForm, ImportProductsForm, ReconnectNotice } from "~/components/integrations/shopify-payment";
import { Button } from "~/components/ui/button";
import { ReconnectForm } from "~/components/integrations/connect-dialog";
import { Notice } from "~/components/ui/notice";
import { CheckboxField, Field, SelectField } from "~/components/ui/field";
import { TextLink } from "~/components/ui/text-link";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { eventHelp, eventWords, fieldWords } from "~/components/integrations/shopify-words";
import { SmsFallbackElsewhere } from "~/components/settings/sms/fallback-elsewhere";
import { m } from "~/paraglide/messages";

// The Shopify connector's settings (issue 45, decision 084): which approved template answers each
// store event and what fills its variables, and the latest events with what came of them. One plain
// form per event type: it all works without JavaScript, at 360 px.
export const handle: PermissionHandle & PageHandle = { permission: "developer:view", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.shopify_mapping_title()} | Jumbe` }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  let shop: string;
  try {
    shop = await connectedShop(organizationId);
  } catch (error) {
    throw data(refusalOf(error).message, { status: 404 });
  }
  const [mappings, templates, events, settings, productImport, missingScopes] = await Promise.all([
    listMappings(organizationId),
    approvedTemplates(organizationId),
    recentEvents(organizationId),
    shopifySettingsOf(organizationId),
    importViewOf(organizationId),
    missingShopifyScopes(organizationId),
  ]);
  const reasons = Object.fromEntries(events.map((e) => [e.id, e.reason ? reasonWords(e.reason) : null]));
  const payments = Object.fromEntries(
    events.map((e) => [e.id, e.payment ? orderPaymentWords(e.payment.status, e.payment.reason, e.payment.amountKes) : null]),
  );
  return {
    shop,
    mappings,
    templates,
    events,
    reasons,
    payments,
    askPayment: settings.askPayment,
    productsImportedAt: settings.productsImportedAt,
    productImport,
    missingScopes,
    canManage: can(current.role, "developer:manage"),
    canImport: can(current.role, "shop:manage"),
    canManagePayment: can(current.role, "payments:manage"),
    // Each message's SMS fallback is set on Settings → SMS, which owners and admins open (decision 159).
    canSetSmsFallback: can(current.role, "whatsapp:manage"),
  };
}

// Read as the browser posts it: the first value of each field, the variables in their order.
const MappingFields = z.object({
  eventType: postedFirst(200),
  enabled: postedFirst(200),
  templateId: postedFirst(200),
  variable: postedAll(20),
  delayMinutes: postedFirst(200),
});

const AskPaymentFields = z.object({ askPayment: postedFirst(20) });

export async function action(args: Route.ActionArgs) {
  return intentAction(args, {
    permission: "developer:manage",
    intents: {
      mapping: intent(MappingFields, async ({ value, user }) => {
        const { eventType } = value;
        try {
          const saved = await saveMapping(user.organization.id, {
            eventType,
            enabled: value.enabled === "on",
            templateId: value.templateId,
            variables: value.variable,
            delayMinutes: value.delayMinutes,
          });
          return redirectWithToast(href("/integrations/shopify"), "success", m.shopify_saved({ event: eventWords(saved.eventType) }));
        } catch (error) {
          return refusalToast(refusalOf(error), { eventType });
        }
      }),
      // Pending orders ask for payment by M-Pesa, or no longer: money, so owners and admins (decision 142).
      "ask-payment": intent(
        AskPaymentFields,
        async ({ value, user }) => {
          try {
            const actor = { organizationId: user.organization.id, userId: user.user.id, meta: requestMeta(args.request, args.context) };
            const on = await saveAskPayment(actor, value.askPayment === "on");
            return redirectWithToast(href("/integrations/shopify"), "success", on ? m.shopify_pay_saved_on() : m.shopify_pay_saved_off());
          } catch (error) {
            return refusalToast(refusalOf(error), {});
          }
        },
        { permission: "payments:manage" },
      ),
      // The shop's products into Jumbe's catalogue (decision 142): for those who manage the shop.
      "import-products": intent(
        z.object({}),
        async ({ user }) => {
          try {
            const actor = { organizationId: user.organization.id, userId: user.user.id, meta: requestMeta(args.request, args.context) };
            const queued = await queueShopifyImport(actor);
            return redirectWithToast(
              href("/integrations/shopify"),
              queued ? "success" : "info",
              queued ? m.shopify_products_queued() : m.shopify_products_already(),
            );
          } catch (error) {
            return refusalToast(refusalOf(error), {});
          }
        },
        { permission: "shop:manage" },
      ),
    },
    // The mapping forms post no intent (their one button).
    unknown: "mapping",
  });
}

export default function ShopifySettings({ loaderData, actionData }: Route.ComponentProps) {
  const { shop, mappings, templates, events, reasons, payments, askPayment, productsImportedAt, productImport, missingScopes } = loaderData;
  const { canManage, canManagePayment, canImport, canSetSmsFallback } = loaderData;
  return (
    <div className="max-w-3xl space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <BackLink to={href("/integrations")}>{m.shopify_back()}</BackLink>
      <div>
        <PageTitle>{m.shopify_mapping_title()}</PageTitle>
        <p className="text-slate-600">{m.shopify_mapping_intro({ shop })}</p>
      </div>
      {canManage ? null : <Notice>{m.integrations_read_only()}</Notice>}
      {templates.length ? null : (
        <Notice tone="warning">
          {m.shopify_no_templates()}{" "}
          <TextLink to={href("/templates")} weight="medium">
            {m.shopify_templates_link()}
          </TextLink>
        </Notice>
      )}
      {mappings.map((mapping) => (
        <MappingForm
          key={mapping.eventType}
          mapping={mapping}
          templates={templates}
          canManage={canManage}
          canSetSmsFallback={canSetSmsFallback}
        />
      ))}
      {missingScopes.length ? (
        <ReconnectNotice missing={missingScopes} canConnect={canManage}>
          <ReconnectForm integration="shopify" shop={shop} label={m.shopify_scope_reconnect()} />
        </ReconnectNotice>
      ) : null}
      <AskPaymentForm on={askPayment} canManage={canManagePayment} needsScope={missingScopes.includes("write_orders")} />
      <ImportProductsForm
        importedAt={productsImportedAt}
        latest={productImport}
        canImport={canImport}
        needsScope={missingScopes.includes("read_products")}
      />
      <RecentEvents events={events} reasons={reasons} payments={payments} />
    </div>
  );
}

function MappingForm({
  mapping,
  templates,
  canManage,
  canSetSmsFallback,
}: {
  mapping: MappingView;
  templates: TemplateChoice[];
  canManage: boolean;
  canSetSmsFallback: boolean;
}) {
  const template = templates.find((t) => t.id === mapping.templateId) ?? null;
  const titleId = `shopify-${mapping.eventType}`;
  const fieldOptions = SHOPIFY_FIELDS.map((field) => ({ value: field, label: fieldWords(field) }));
  return (
    <Card as="section" aria-labelledby={titleId} data-event={mapping.eventType}>
      <div className="flex flex-wrap items-center gap-2">
        <h2 id={titleId} className="font-semibold">
          {eventWords(mapping.eventType)}
        </h2>
        <Badge tone={mapping.enabled ? "success" : "neutral"}>{mapping.enabled ? m.shopify_on() : m.shopify_off()}</Badge>
      </div>
      <p className="mt-1 text-sm text-slate-600">{eventHelp(mapping.eventType)}</p>
      {canSetSmsFallback ? (
        <div className="mt-2">
          <SmsFallbackElsewhere automation={`shopify_${mapping.eventType}`} />
        </div>
      ) : null}
      <Form method="post" className="mt-4 space-y-4">
        <input type="hidden" name="eventType" value={mapping.eventType} />
        <fieldset disabled={!canManage} className="space-y-4">
          <CheckboxField label={m.shopify_enabled()} name="enabled" defaultChecked={mapping.enabled} />
          <SelectField
            label={m.shopify_template_label()}
            name="templateId"
            defaultValue={mapping.templateId ?? ""}
            hint={m.shopify_template_hint()}
          >
            <option value="">{m.shopify_template_none()}</option>
            {templates.map((t) => (
              <option key={t.id} value={t.id}>
                {t.blocked ? m.shopify_template_option_blocked({ name: t.name, language: t.language }) : `${t.name} (${t.language})`}
              </option>
            ))}
          </SelectField>
          {template?.blocked ? <Notice tone="warning">{templateBlockWords(template.blocked)}</Notice> : null}
          {template ? (
            <div className="space-y-3">
              <p className="rounded-lg bg-slate-50 p-3 text-sm break-words whitespace-pre-wrap text-slate-700">{template.body}</p>
              {template.variables.length ? (
                template.variables.map((name, i) => (
                  <SelectField
                    key={`${template.id}-${name}`}
                    label={m.shopify_variable_label({ name: `{{${name}}}` })}
                    name="variable"
                    defaultValue={mapping.variables[i] ?? ""}
                    options={fieldOptions}
                  />
                ))
              ) : (
                <p className="text-sm text-slate-600">{m.shopify_no_variables()}</p>
              )}
            </div>
          ) : mapping.templateId === null ? null : (
            <Notice tone="warning">{m.shopify_template_gone()}</Notice>
          )}
          {mapping.eventType === "checkout_abandoned" ? (
            <Field
              label={m.shopify_delay_label()}
              name="delayMinutes"
              type="number"
              inputMode="numeric"
              min={DELAY_MINUTES.min}
              max={DELAY_MINUTES.max}
              defaultValue={mapping.delayMinutes}
              hint={m.shopify_delay_help({ min: DELAY_MINUTES.min, max: DELAY_MINUTES.max })}
            />
          ) : null}
          <p className="text-xs text-slate-500">{m.shopify_variables_after_save()}</p>
          {canManage ? (
            <Button type="submit" size="sm" aria-label={m.shopify_save_label({ event: eventWords(mapping.eventType) })}>
              {m.shopify_save()}
            </Button>
          ) : null}
        </fieldset>
      </Form>
    </Card>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
