import type { CampaignFormValues } from "~/lib/campaign-form";
import { LIST_MAX } from "~/lib/campaign-form";
import { formatNumber, zoneWords } from "~/lib/dates";
import { Card } from "~/components/ui/card";
import { CheckboxField, Field, FileField, SelectField, TextareaField } from "~/components/ui/field";
import { m } from "~/paraglide/messages";
import type { CampaignChoices, CampaignErrors } from "./types";

/** Who gets it: a segment, tags, everyone who opted in, pasted or uploaded numbers, in any mix. */
export function AudienceCard({
  choices,
  values,
  errors,
}: {
  choices: CampaignChoices;
  values: CampaignFormValues;
  errors: CampaignErrors;
}) {
  return (
    <Card>
      <fieldset aria-describedby={errors.audience ? "audience-error" : undefined}>
        <legend className="font-semibold text-slate-900">{m.messaging_campaigns_col_audience()}</legend>
        <p className="mt-0.5 text-sm text-slate-600">{m.messaging_form_audience_intro()}</p>
        {errors.audience ? (
          <p id="audience-error" role="alert" className="mt-3 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-700">
            {errors.audience}
          </p>
        ) : null}
        <div className="mt-4 grid gap-x-4 sm:grid-cols-2">
          <SelectField
            label={m.messaging_segments_col_segment()}
            name="segment"
            defaultValue={values.segment}
            options={[
              { value: "", label: m.messaging_form_no_segment() },
              ...choices.segments.map((s) => ({ value: s.id, label: s.name })),
            ]}
          />
          <Field
            label={m.messaging_contact_field_tags()}
            name="tags"
            defaultValue={values.tags}
            placeholder={m.messaging_form_tags_placeholder()}
            hint={
              choices.tags.length
                ? m.messaging_form_tags_yours({ tags: `${choices.tags.slice(0, 12).join(", ")}${choices.tags.length > 12 ? "…" : ""}` })
                : undefined
            }
          />
        </div>
        <CheckboxField label={m.messaging_form_everyone()} name="everyone" defaultChecked={values.everyone} className="mb-4" />
        <div className="grid gap-x-4 sm:grid-cols-2">
          <TextareaField
            label={m.messaging_form_phones()}
            name="phones"
            defaultValue={values.phones}
            hint={m.messaging_form_phones_hint()}
          />
          <FileField
            label={m.messaging_form_upload_list()}
            name="file"
            accept=".csv,.txt,text/csv,text/plain"
            hint={m.messaging_form_upload_hint({ max: formatNumber(LIST_MAX) })}
          />
        </div>
      </fieldset>
    </Card>
  );
}

/** A campaign's time: now, or a date and time in the organisation's time zone. */
export function WhenCard({ values, errors }: { values: CampaignFormValues; errors: CampaignErrors }) {
  return (
    <Card>
      <fieldset>
        <legend className="font-semibold text-slate-900">{m.messaging_form_when()}</legend>
        <div className="mt-3 flex flex-wrap gap-6 text-sm">
          <label className="flex items-center gap-2">
            <input type="radio" name="when" value="now" defaultChecked={values.when === "now"} /> {m.messaging_form_send_now()}
          </label>
          <label className="flex items-center gap-2">
            <input type="radio" name="when" value="later" defaultChecked={values.when === "later"} /> {m.messaging_form_schedule()}
          </label>
        </div>
        <div className="mt-4 grid gap-x-4 sm:grid-cols-2">
          <Field
            label={m.messaging_fields_type_date()}
            type="date"
            name="date"
            defaultValue={values.date}
            errors={errors.scheduledFor ? [errors.scheduledFor] : undefined}
            hint={m.messaging_form_date_hint({ zone: zoneWords() })}
          />
          <Field label={m.messaging_form_time()} type="time" name="time" defaultValue={values.time} />
        </div>
      </fieldset>
    </Card>
  );
}
