import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, FileField, SelectField, TextareaField } from "~/components/ui/field";
import { SAMPLE_FIELD } from "~/lib/template-form";
import { formatBytes, isMediaFormat, LIMITS, MEDIA_SAMPLES, placeholderCount, sampleHint } from "~/lib/templates";
import type { TemplatePartProps } from "./template-form-parts";

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
      <h2 className="mb-2 font-semibold">Content</h2>
      <SelectField
        label="Header (optional)"
        name="headerFormat"
        defaultValue={values.headerFormat}
        options={[
          { value: "NONE", label: "No header" },
          { value: "TEXT", label: "Text" },
          { value: "IMAGE", label: "Image" },
          { value: "VIDEO", label: "Video" },
          { value: "DOCUMENT", label: "Document (PDF)" },
        ]}
      />
      <div id="template-header" data-live-region>
        {media ? (
          <>
            <FileField
              label={`Sample ${MEDIA_SAMPLES[media].noun}`}
              name={SAMPLE_FIELD}
              accept={MEDIA_SAMPLES[media].accept}
              errors={err("headerSample")}
              markRequired={!kept}
              hint={
                kept
                  ? `Kept: ${kept.fileName} (${formatBytes(kept.size)}). Choose a file only to replace it. ${sampleHint(media)}`
                  : `Meta reviews the template with it. ${sampleHint(media)}`
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
              label="Header text"
              name="headerText"
              defaultValue={values.headerText ?? ""}
              errors={err("headerText")}
              maxLength={LIMITS.headerText}
              hint="Up to 60 characters, one variable {{1}}."
            />
            <div id="template-header-example" data-live-region>
              {placeholderCount(values.headerText) ? (
                <Field
                  label="Example for the header's {{1}}"
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
        label="Body"
        name="body"
        defaultValue={values.body ?? ""}
        errors={err("body")}
        markRequired
        rows={6}
        maxLength={LIMITS.body}
        hint="Up to 1,024 characters. Variables are {{1}}, {{2}}... in order; *bold*, _italic_."
      />
      <div id="template-examples" data-live-region>
        {exampleCount ? (
          <fieldset className="rounded-lg border border-slate-200 p-3">
            <legend className="px-1 text-sm font-medium text-slate-700">Example values (Meta reviews the template with them)</legend>
            <div className="grid gap-x-3 sm:grid-cols-2">
              {Array.from({ length: exampleCount }, (_, i) => (
                <Field
                  key={i}
                  label={`Example for {{${i + 1}}}`}
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
            Update example fields
          </Button>
        )}
      </div>
      <Field
        label="Footer (optional)"
        name="footer"
        defaultValue={values.footer ?? ""}
        errors={err("footer")}
        maxLength={LIMITS.footer}
        className="mt-2"
      />
    </Card>
  );
}
