import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, FileField, SelectField, TextareaField } from "~/components/ui/field";
import { SAMPLE_FIELD } from "~/lib/template-form";
import { formatBytes, isMediaFormat, LIMITS, MEDIA_SAMPLES, placeholderCount, sampleHint, sampleLabel } from "~/lib/templates";
import { formatNumber } from "~/lib/dates";
import type { TemplatePartProps } from "./template-form-parts";
import { m } from "~/paraglide/messages";

/**
 * The message's header (text or a media sample), body with its example values, and footer. Without
 * JavaScript "Update example fields" asks the server for as many example fields as the body has
 * variables; with it the server redraws the header's and the examples' parts as they are typed
 * (app/assets/live.js).
 */
export function TemplateContentFields({ values, errors: err }: TemplatePartProps) {
  const exampleCount = placeholderCount(values.body);
  const media = isMediaFormat(values.headerFormat) ? values.headerFormat : null;
  const kept = values.headerSample?.id ? values.headerSample : undefined;
  return (
    <Card className="space-y-1">
      <h2 className="mb-2 font-semibold">{m.templates_content_heading()}</h2>
      <SelectField
        label={m.templates_header_label()}
        name="headerFormat"
        defaultValue={values.headerFormat}
        errors={err("headerFormat")}
        options={[
          { value: "NONE", label: m.templates_header_none() },
          { value: "TEXT", label: m.templates_header_text_option() },
          { value: "IMAGE", label: m.templates_header_image() },
          { value: "VIDEO", label: m.templates_header_video() },
          { value: "DOCUMENT", label: m.templates_header_document() },
        ]}
      />
      <div id="template-header" data-live-region>
        {media ? (
          <>
            <FileField
              label={sampleLabel(media)}
              name={SAMPLE_FIELD}
              accept={MEDIA_SAMPLES[media].accept}
              errors={err("headerSample")}
              markRequired={!kept}
              hint={
                kept
                  ? m.templates_sample_kept({ file: kept.fileName, size: formatBytes(kept.size), hint: sampleHint(media) })
                  : m.templates_sample_reviewed({ hint: sampleHint(media) })
              }
            />
            {kept ? (
              <>
                <input type="hidden" name="headerSampleId" value={kept.id} />
                <input type="hidden" name="headerSampleName" value={kept.fileName} />
                <input type="hidden" name="headerSampleType" value={kept.contentType} />
                <input type="hidden" name="headerSampleSize" value={kept.size} />
                {kept.url ? <input type="hidden" name="headerSampleUrl" value={kept.url} /> : null}
              </>
            ) : null}
          </>
        ) : null}
        {values.headerFormat === "TEXT" ? (
          <div className="grid gap-3 sm:grid-cols-2">
            <Field
              label={m.templates_header_text()}
              name="headerText"
              defaultValue={values.headerText ?? ""}
              errors={err("headerText")}
              maxLength={LIMITS.headerText}
              hint={m.templates_header_text_hint({ count: LIMITS.headerText, variable: "{{1}}" })}
            />
            <div id="template-header-example" data-live-region>
              {placeholderCount(values.headerText) ? (
                <Field
                  label={m.templates_header_example({ variable: "{{1}}" })}
                  name="headerExample"
                  defaultValue={values.headerExample ?? ""}
                  errors={err("headerExample")}
                />
              ) : null}
            </div>
          </div>
        ) : null}
      </div>
      <TextareaField
        label={m.templates_body_label()}
        name="body"
        defaultValue={values.body ?? ""}
        errors={err("body")}
        markRequired
        rows={6}
        maxLength={LIMITS.body}
        hint={m.templates_body_hint({ count: formatNumber(LIMITS.body), first: "{{1}}", second: "{{2}}" })}
      />
      <div id="template-examples" data-live-region>
        {exampleCount ? (
          <fieldset className="rounded-lg border border-slate-200 p-3">
            <legend className="px-1 text-sm font-medium text-slate-700">{m.templates_examples_legend()}</legend>
            <div className="grid gap-x-3 sm:grid-cols-2">
              {Array.from({ length: exampleCount }, (_, i) => (
                <Field
                  key={i}
                  label={m.templates_example_for({ variable: `{{${i + 1}}}` })}
                  name="bodyExamples"
                  id={`bodyExamples-${i}`}
                  defaultValue={values.bodyExamples[i] ?? ""}
                  errors={err(`bodyExamples[${i}]`)}
                />
              ))}
            </div>
          </fieldset>
        ) : (
          <Button type="submit" name="intent" value="refresh" variant="link" formNoValidate data-live-fallback>
            {m.templates_examples_update()}
          </Button>
        )}
      </div>
      <Field
        label={m.templates_footer_label()}
        name="footer"
        defaultValue={values.footer ?? ""}
        errors={err("footer")}
        maxLength={LIMITS.footer}
        className="mt-2"
      />
    </Card>
  );
}
