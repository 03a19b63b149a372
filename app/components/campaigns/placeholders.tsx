import { FIXED, type CampaignFormValues } from "~/lib/campaign-form";
import { Field, SelectField } from "~/components/ui/field";
import { m } from "~/paraglide/messages";
import { MEDIA_HEADERS, type CampaignChoices, type CampaignPicker, type TemplateChoice } from "./types";
import { TemplateProducts } from "./template-products";

/** The chosen template's text and, for each placeholder, where its value comes from. */
export function Placeholders({
  template,
  choices,
  values,
  picker,
  error,
}: {
  template: TemplateChoice;
  choices: CampaignChoices;
  values: CampaignFormValues;
  picker: CampaignPicker | null;
  error?: string;
}) {
  const options = [
    { value: "", label: m.messaging_placeholders_choose_source() },
    ...choices.fields.map((f) => ({ value: f.key, label: f.label })),
    { value: FIXED, label: m.messaging_placeholders_fixed_value_option() },
  ];
  const same = values.template === template.key;
  const row = (prefix: string, label: string, v: CampaignFormValues["body"][number] | undefined) => (
    <div key={prefix} className="grid gap-x-4 sm:grid-cols-3">
      <SelectField label={label} name={`${prefix}_source`} defaultValue={v?.source ?? ""} options={options} />
      <Field
        label={m.messaging_placeholders_fallback()}
        name={`${prefix}_fallback`}
        defaultValue={v?.fallback ?? ""}
        hint={m.messaging_placeholders_fallback_hint()}
      />
      <Field
        label={m.messaging_placeholders_fixed_value()}
        name={`${prefix}_value`}
        defaultValue={v?.value ?? ""}
        hint={m.messaging_placeholders_fixed_value_hint()}
      />
    </div>
  );
  // A text header's one value: its fields are h_source, h_fallback and h_value.
  const headerRow = template.headerTakesText
    ? row("h", m.messaging_placeholders_header({ placeholder: HEADER_PLACEHOLDER }), values.header)
    : null;
  return (
    <fieldset className="mt-2 rounded-lg border border-slate-200 p-4" aria-describedby={error ? "parameters-error" : undefined}>
      <legend className="px-1 text-sm font-semibold text-slate-900">{m.messaging_placeholders_title()}</legend>
      <p className="mb-3 text-sm whitespace-pre-line text-slate-700">
        {template.header ? <strong className="block">{template.header}</strong> : null}
        {MEDIA_HEADERS.includes(template.headerFormat ?? "") ? (
          <strong className="block">{m.messaging_placeholders_media_header({ kind: kindWords(template.headerFormat!) })}</strong>
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
      <TemplateProducts template={template} picker={picker} values={same ? values.products : undefined} />
      {headerRow}
      {Array.from({ length: template.bodyCount }, (_, i) =>
        row(`p${i + 1}`, `{{${template.named[i] ?? i + 1}}}`, same ? values.body[i] : undefined),
      )}
      {template.buttons.map((button) => (
        <div key={button.index}>
          <p className="mb-1 text-sm text-slate-700">
            {button.kind === "url" ? (
              <>
                {m.messaging_placeholders_button_url_before()} <strong>{button.text}</strong> {m.messaging_placeholders_button_url_middle()}{" "}
                <span className="break-all">{button.url}</span>
                {m.messaging_placeholders_button_url_after()}
              </>
            ) : (
              <>
                {m.messaging_placeholders_button_code_before()} <strong>{button.text}</strong>{" "}
                {m.messaging_placeholders_button_code_after()}
              </>
            )}
          </p>
          {row(
            `b${button.index}`,
            m.messaging_placeholders_button_row({ text: button.text }),
            same ? values.buttons.find((b) => b.index === button.index) : undefined,
          )}
        </div>
      ))}
      {!template.headerTakesText && template.bodyCount === 0 && !template.buttons.length && !template.productButton ? (
        <p className="text-sm text-slate-600">{m.messaging_placeholders_none()}</p>
      ) : null}
    </fieldset>
  );
}

const KINDS: Record<string, string> = { IMAGE: "image", VIDEO: "video", DOCUMENT: "document" };
/** A text header's one placeholder, and what a header file's link starts with: codes, the same in every language. */
const HEADER_PLACEHOLDER = "{{1}}";
const LINK_START = "https://";

/** A media header's kind in words ("image"), in the request's language; another format as Meta names it, lower-cased. */
function kindWords(format: string): string {
  const words: Record<string, () => string> = {
    IMAGE: m.messaging_media_kind_image,
    VIDEO: m.messaging_media_kind_video,
    DOCUMENT: m.messaging_media_kind_document,
  };
  return words[format]?.() ?? format.toLowerCase();
}

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
  const kind = KINDS[template.headerFormat ?? ""] ?? "file";
  const what = KINDS[template.headerFormat ?? ""] ? kindWords(template.headerFormat!) : m.messaging_media_kind_file();
  const uploads = media.filter((file) => file.kind === kind);
  return (
    <div className="mb-4 grid gap-x-4 sm:grid-cols-2">
      <Field
        label={m.messaging_placeholders_header_link({ kind: what })}
        name="hm_link"
        type="url"
        inputMode="url"
        defaultValue={values?.link ?? ""}
        placeholder={LINK_START}
        hint={m.messaging_placeholders_header_link_hint({ kind: what })}
      />
      {uploads.length ? (
        <SelectField
          label={m.messaging_placeholders_header_upload({ kind: what })}
          name="hm_media"
          defaultValue={values?.mediaId ?? ""}
          options={[
            { value: "", label: m.messaging_placeholders_header_upload_none() },
            ...uploads.map((file) => ({ value: file.id, label: file.name })),
          ]}
        />
      ) : null}
      {kind === "document" ? (
        <Field
          label={m.messaging_placeholders_file_name()}
          name="hm_filename"
          defaultValue={values?.filename ?? ""}
          maxLength={240}
          hint={m.messaging_placeholders_file_name_hint()}
        />
      ) : null}
    </div>
  );
}
