import { LANGUAGE_NAMES } from "~/components/ui/language-switcher";
import { locales } from "~/paraglide/runtime";
import { Form, href } from "react-router";
import { getFormProps, getInputProps, getSelectProps } from "~/components/ui/form-state";
import type { Route } from "./+types/organisation";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formAction } from "~/.server/domains/auth/form-actions";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { organisationDetails, updateOrganisationDetails } from "~/.server/domains/organisation/details";
import { OrganisationDetailsSchema } from "~/lib/schemas/organisation";
import { ORGANISATION_NAME_MAX, POSTAL_ADDRESS_MAX } from "~/lib/schemas/organisation-rules";
import { COUNTY_OPTIONS, INDUSTRIES } from "~/lib/kenya";
import { OFFERED_TIME_ZONES, timeZoneLabel } from "~/lib/time-zones";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, FormError, SelectField } from "~/components/ui/field";
import { Toast } from "~/components/ui/toast";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { SettingsHeader } from "~/components/settings/settings-header";
import { refusalToast } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyOrganisationDetailsSchema = lazySchema(() => import("~/lib/schemas/organisation"), "OrganisationDetailsSchema");

// A settings form: sent as a document without React (decision 066); the server checks every field and app/assets/forms.js holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "organization:manage", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.settings_organisation_meta_title() }];

// Built when the page renders: their words are the request's language.
const industryOptions = () => [
  { value: "", label: m.settings_organisation_not_given() },
  ...Object.entries(INDUSTRIES).map(([value, label]) => ({ value, label })),
];
// Each language named in itself, as the switcher names them.
const LANGUAGE_OPTIONS = locales.map((locale) => ({ value: locale, label: LANGUAGE_NAMES[locale] }));
const countiesWithNone = () => [{ value: "", label: m.settings_organisation_not_given() }, ...COUNTY_OPTIONS];
const AFRICAN_ZONES = OFFERED_TIME_ZONES.filter((zone) => zone.startsWith("Africa/"));

/** The organisation's name and what its invoices carry; owners and admins (the layout's middleware checks first). */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  return { details: organisationDetails(current.organization) };
}

export async function action(args: Route.ActionArgs) {
  // The route's declaration (organization:manage) is checked by the layout's middleware before this
  // runs; updateOrganisationDetails refuses any other role too (403, the same words, in a toast).
  return formAction(args, {
    permission: "signed-in",
    schema: OrganisationDetailsSchema,
    handle: async ({ value, user }) => {
      const changed = await updateOrganisationDetails(user, value, requestMeta(args.request, args.context));
      return redirectWithToast(
        href("/settings/organisation"),
        "success",
        changed.length ? m.settings_organisation_saved_toast() : m.settings_organisation_unchanged_toast(),
      );
    },
    refused: (refusal) => refusalToast(refusal),
  });
}

export default function OrganisationSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { details } = loaderData;
  const [form, fields] = useSchemaForm(lazyOrganisationDetailsSchema, actionData?.result, {
    id: "organisation",
    shouldValidate: "onBlur",
    defaultValue: {
      name: details.name,
      kraPin: details.kraPin ?? "",
      postalAddress: details.postalAddress ?? "",
      county: details.county ?? "",
      industry: details.industry ?? "",
      timeZone: details.timeZone,
      defaultLocale: details.defaultLocale,
    },
  });
  // A zone set elsewhere (any the server knows) stays a choice.
  const otherZone = (OFFERED_TIME_ZONES as readonly string[]).includes(details.timeZone) ? null : details.timeZone;
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <SettingsHeader current="organisation" />
      <Card>
        <CardHeader title={m.settings_organisation_title()} description={m.settings_organisation_description()} />
        <Form method="post" {...getFormProps(form)} className="mt-4 grid max-w-3xl gap-x-4 sm:grid-cols-2">
          <div className="sm:col-span-2">
            <FormError id={form.errorId} errors={form.errors} />
          </div>
          <Field
            label={m.settings_organisation_name_label()}
            markRequired
            autoComplete="organization"
            maxLength={ORGANISATION_NAME_MAX}
            errors={fields.name.errors}
            {...getInputProps(fields.name, { type: "text" })}
            key={fields.name.key}
            className="sm:col-span-2"
          />
          <Field
            label={m.settings_organisation_kra_pin_label()}
            hint={m.settings_organisation_kra_pin_hint()}
            autoComplete="off"
            spellCheck={false}
            errors={fields.kraPin.errors}
            {...getInputProps(fields.kraPin, { type: "text" })}
            key={fields.kraPin.key}
          />
          <SelectField
            label={m.settings_organisation_county_label()}
            errors={fields.county.errors}
            {...getSelectProps(fields.county)}
            key={fields.county.key}
            options={countiesWithNone()}
          />
          <Field
            label={m.settings_organisation_postal_address_label()}
            hint={m.settings_organisation_postal_address_hint()}
            autoComplete="street-address"
            maxLength={POSTAL_ADDRESS_MAX}
            errors={fields.postalAddress.errors}
            {...getInputProps(fields.postalAddress, { type: "text" })}
            key={fields.postalAddress.key}
            className="sm:col-span-2"
          />
          <SelectField
            label={m.settings_organisation_industry_label()}
            errors={fields.industry.errors}
            {...getSelectProps(fields.industry)}
            key={fields.industry.key}
            options={industryOptions()}
          />
          <SelectField
            label={m.settings_organisation_time_zone_label()}
            markRequired
            hint={m.settings_organisation_time_zone_hint()}
            errors={fields.timeZone.errors}
            {...getSelectProps(fields.timeZone)}
            key={fields.timeZone.key}
          >
            <optgroup label={m.settings_organisation_zones_africa()}>
              {AFRICAN_ZONES.map((zone) => (
                <option key={zone} value={zone}>
                  {timeZoneLabel(zone)}
                </option>
              ))}
            </optgroup>
            <optgroup label={m.settings_organisation_zones_other()}>
              <option value="UTC">{timeZoneLabel("UTC")}</option>
              {otherZone ? <option value={otherZone}>{otherZone}</option> : null}
            </optgroup>
          </SelectField>
          <SelectField
            label={m.settings_organisation_language_label()}
            markRequired
            hint={m.settings_organisation_language_hint()}
            errors={fields.defaultLocale.errors}
            {...getSelectProps(fields.defaultLocale)}
            key={fields.defaultLocale.key}
            options={LANGUAGE_OPTIONS}
          />
          <div className="sm:col-span-2">
            <Button type="submit">{m.settings_organisation_save()}</Button>
          </div>
        </Form>
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
