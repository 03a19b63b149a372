import { data, Form, href } from "react-router";
import { Monitor, Smartphone, Tablet } from "~/components/ui/icons";
import type { Route } from "./+types/preview";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { findTemplate, isUuid, templateChoices } from "~/.server/domains/templates/queries";
import { templateInput } from "~/.server/domains/templates/manage";
import { withStoredSample } from "~/.server/domains/templates/media";
import {
  languageLabel,
  renderTemplate,
  templateStatusTone,
  templateStatusWord,
  templateVariables,
  type TemplateInput,
} from "~/lib/templates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { useCan } from "~/components/layout/shell-role";
import { Field, SelectField } from "~/components/ui/field";
import { DEVICE_WIDTHS, MessagePreview, type Device } from "~/components/templates/message-preview";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { liveDocumentPage, loadAsDocument } from "~/components/layout/document-page";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";

// A document without React (decision 067): the page's script (app/assets/live.js, data-live-form)
// asks the server for the preview again as values are typed, and a new template loads its page.
export const handle: PermissionHandle & PageHandle = { permission: "templates:view", ...liveDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.templates_preview_title()} | Jumbe` }];

const devices = (): { value: Device; label: string; icon: typeof Smartphone }[] => [
  { value: "mobile", label: m.templates_preview_device_mobile(), icon: Smartphone },
  { value: "tablet", label: m.templates_preview_device_tablet(), icon: Tablet },
  { value: "desktop", label: m.templates_preview_device_desktop(), icon: Monitor },
];

/**
 * Message Preview: a GET form (template, its variables, the device width), so the server renders
 * the preview without JavaScript and the URL can be shared; with JavaScript it follows the typing (the
 * page's script fetches the same form's answer and swaps the preview in, the address unchanged).
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  const params = args.url.searchParams;
  const choices = await templateChoices(organizationId);
  const wanted = params.get("template");
  // A template that is not the tenant's (or no template at all) is a 404, with the tenant's first one to choose from.
  const asked = isUuid(wanted) ? await findTemplate(organizationId, wanted) : undefined;
  const missing = !!wanted && !asked;
  const template = asked ?? (choices[0] ? await findTemplate(organizationId, choices[0].id) : undefined);
  const device = (Object.keys(DEVICE_WIDTHS) as Device[]).includes(params.get("device") as Device)
    ? (params.get("device") as Device)
    : "mobile";
  const values: Record<string, string> = {};
  for (const [key, value] of params) if (/^(header|body)\.\d{1,2}$|^button\.\d$/.test(key)) values[key] = value.slice(0, 200);
  const page = {
    choices: choices.map((c) => ({
      id: c.id,
      label: `${c.name} (${languageLabel(c.language)})${c.status === "approved" ? "" : ` · ${templateStatusWord(c.status)}`}`,
    })),
    template: template
      ? {
          id: template.id,
          name: template.name,
          status: template.status,
          input: await withStoredSample(organizationId, template.id, templateInput(template)),
        }
      : null,
    missing,
    device,
    values,
  };
  return missing ? data(page, { status: 404 }) : page;
}

export default function Preview({ loaderData }: Route.ComponentProps) {
  const { choices, template, device, missing } = loaderData;
  const canCreate = useCan("templates:manage");
  return (
    <div className="space-y-6">
      <div>
        <PageTitle>{m.templates_preview_title()}</PageTitle>
        <p className="text-slate-600">{m.templates_preview_intro()}</p>
      </div>
      {missing ? (
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          {m.templates_preview_missing()}
        </p>
      ) : null}
      {template ? (
        <PreviewForm
          key={`${template.id}-${device}-${JSON.stringify(loaderData.values)}`}
          choices={choices}
          template={template}
          device={device}
          initial={loaderData.values}
        />
      ) : (
        <Card>
          {canCreate ? (
            <p className="text-slate-700">
              {m.templates_empty()}{" "}
              <TextLink to={href("/templates/new")} weight="semibold">
                {m.templates_preview_empty_create()}
              </TextLink>{" "}
              {m.templates_preview_empty_after()}
            </p>
          ) : (
            <p className="text-slate-700">{m.templates_empty()}</p>
          )}
        </Card>
      )}
    </div>
  );
}

function PreviewForm({
  choices,
  template,
  device,
  initial,
}: {
  choices: { id: string; label: string }[];
  template: { id: string; name: string; status: string; input: TemplateInput };
  device: Device;
  initial: Record<string, string>;
}) {
  const variables = templateVariables(template.input);
  return (
    <div className="grid gap-6 lg:grid-cols-[20rem_minmax(0,1fr)]">
      <Form method="get" className="space-y-1" aria-label={m.templates_preview_settings()} data-live-form="message-preview">
        <Card className="space-y-1">
          <SelectField
            label={m.templates_preview_template()}
            name="template"
            defaultValue={template.id}
            // Another template has other variables: its page is loaded.
            data-live-submit
            options={choices.map((c) => ({ value: c.id, label: c.label }))}
          />
          <p className="pb-2 text-sm">
            <Badge tone={templateStatusTone(template.status)}>{templateStatusWord(template.status)}</Badge>
          </p>
          {variables.length ? (
            <fieldset>
              <legend className="mb-2 text-sm font-semibold text-slate-800">{m.templates_preview_variables()}</legend>
              {variables.map((v) => (
                <Field key={v.key} label={v.label} name={v.key} defaultValue={initial[v.key] ?? ""} placeholder={v.example} />
              ))}
            </fieldset>
          ) : (
            <p className="pb-2 text-sm text-slate-600">{m.templates_preview_no_variables()}</p>
          )}
          <fieldset>
            <legend className="mb-2 text-sm font-semibold text-slate-800">{m.templates_preview_device_width()}</legend>
            <div className="flex flex-wrap gap-2">
              {devices().map(({ value, label, icon: Icon }) => (
                <label
                  key={value}
                  className="flex cursor-pointer items-center gap-1.5 rounded-lg border border-slate-300 px-3 py-2 text-sm has-[:checked]:border-brand-700 has-[:checked]:bg-brand-50 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-brand-600"
                >
                  <input type="radio" name="device" value={value} defaultChecked={device === value} className="sr-only" />
                  <Icon className="size-4" aria-hidden /> {label}
                </label>
              ))}
            </div>
          </fieldset>
          <Button type="submit" className="mt-4">
            {m.templates_preview_show()}
          </Button>
        </Card>
      </Form>
      <section id="message-preview" aria-label={m.templates_preview_of({ name: template.name })}>
        <MessagePreview message={renderTemplate(template.input, initial)} device={device} />
      </section>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
