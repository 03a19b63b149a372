import { FIXED, type CampaignFormValues } from "~/lib/campaign-form";
import { Field, SelectField } from "~/components/ui/field";
import { MEDIA_HEADERS, type CampaignChoices, type TemplateChoice } from "./types";

/** The chosen template's text and, for each placeholder, where its value comes from. */
export function Placeholders({
  template,
  choices,
  values,
  error,
}: {
  template: TemplateChoice;
  choices: CampaignChoices;
  values: CampaignFormValues;
  error?: string;
}) {
  const options = [
    { value: "", label: "Choose a field or a fixed value" },
    ...choices.fields.map((f) => ({ value: f.key, label: f.label })),
    { value: FIXED, label: "A fixed value" },
  ];
  const same = values.template === template.key;
  const row = (prefix: string, label: string, v: CampaignFormValues["body"][number] | undefined) => (
    <div key={prefix} className="grid gap-x-4 sm:grid-cols-3">
      <SelectField label={label} name={`${prefix}_source`} defaultValue={v?.source ?? ""} options={options} />
      <Field label="Fallback" name={`${prefix}_fallback`} defaultValue={v?.fallback ?? ""} hint="When the field is empty." />
      <Field label="Fixed value" name={`${prefix}_value`} defaultValue={v?.value ?? ""} hint="For everyone, with A fixed value." />
    </div>
  );
  return (
    <fieldset className="mt-2 rounded-lg border border-slate-200 p-4" aria-describedby={error ? "parameters-error" : undefined}>
      <legend className="px-1 text-sm font-semibold text-slate-900">Placeholders</legend>
      <p className="mb-3 text-sm whitespace-pre-line text-slate-700">
        {template.header ? <strong className="block">{template.header}</strong> : null}
        {MEDIA_HEADERS.includes(template.headerFormat ?? "") ? (
          <strong className="block">[{template.headerFormat!.toLowerCase()} header]</strong>
        ) : null}
        {template.body}
      </p>
      {error ? (
        <p id="parameters-error" role="alert" className="mb-3 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-700">
          {error}
        </p>
      ) : null}
      {MEDIA_HEADERS.includes(template.headerFormat ?? "") ? (
        <HeaderFile template={template} media={choices.media} values={same ? values.headerFile : undefined} />
      ) : null}
      {template.headerTakesText ? row("h", "Header {{1}}", values.header) : null}
      {Array.from({ length: template.bodyCount }, (_, i) =>
        row(`p${i + 1}`, `{{${template.named[i] ?? i + 1}}}`, same ? values.body[i] : undefined),
      )}
      {template.buttons.map((button) => (
        <div key={button.index}>
          <p className="mb-1 text-sm text-slate-700">
            {button.kind === "url" ? (
              <>
                Button <strong>{button.text}</strong> opens <span className="break-all">{button.url}</span>: the end of its link for each
                person.
              </>
            ) : (
              <>
                Button <strong>{button.text}</strong> copies a code for each person (at most 15 characters).
              </>
            )}
          </p>
          {row(`b${button.index}`, `Button: ${button.text}`, same ? values.buttons.find((b) => b.index === button.index) : undefined)}
        </div>
      ))}
      {!template.headerTakesText && template.bodyCount === 0 && !template.buttons.length ? (
        <p className="text-sm text-slate-600">This template has no placeholders.</p>
      ) : null}
    </fieldset>
  );
}

const KIND_WORDS: Record<string, string> = { IMAGE: "image", VIDEO: "video", DOCUMENT: "document" };

/** A media header's file, the same for everyone: an https link, or one of the tenant's uploads of that kind. */
function HeaderFile({
  template,
  media,
  values,
}: {
  template: TemplateChoice;
  media: CampaignChoices["media"];
  values: CampaignFormValues["headerFile"] | undefined;
}) {
  const kind = KIND_WORDS[template.headerFormat ?? ""] ?? "file";
  const uploads = media.filter((m) => m.kind === kind);
  return (
    <div className="mb-4 grid gap-x-4 sm:grid-cols-2">
      <Field
        label={`Header ${kind}: link`}
        name="hm_link"
        type="url"
        inputMode="url"
        defaultValue={values?.link ?? ""}
        placeholder="https://"
        hint={`The ${kind}'s https address, sent to everyone. WhatsApp fetches it from there.`}
      />
      {uploads.length ? (
        <SelectField
          label={`Or an uploaded ${kind}`}
          name="hm_media"
          defaultValue={values?.mediaId ?? ""}
          options={[{ value: "", label: "None: use the link" }, ...uploads.map((m) => ({ value: m.id, label: m.name }))]}
        />
      ) : null}
      {kind === "document" ? (
        <Field
          label="File name (optional)"
          name="hm_filename"
          defaultValue={values?.filename ?? ""}
          maxLength={240}
          hint="The name people see, such as statement.pdf."
        />
      ) : null}
    </div>
  );
}
