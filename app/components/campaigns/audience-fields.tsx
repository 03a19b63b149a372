import type { CampaignFormValues } from "~/lib/campaign-form";
import { LIST_MAX } from "~/lib/campaign-form";
import { formatNumber, zoneWords } from "~/lib/dates";
import { Card } from "~/components/ui/card";
import { CheckboxField, Field, FileField, SelectField, TextareaField } from "~/components/ui/field";
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
        <legend className="font-semibold text-slate-900">Audience</legend>
        <p className="mt-0.5 text-sm text-slate-600">
          Any mix: everyone they name gets it once. Marketing goes only to people who opted in.
        </p>
        {errors.audience ? (
          <p id="audience-error" role="alert" className="mt-3 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-700">
            {errors.audience}
          </p>
        ) : null}
        <div className="mt-4 grid gap-x-4 sm:grid-cols-2">
          <SelectField
            label="Segment"
            name="segment"
            defaultValue={values.segment}
            options={[{ value: "", label: "No segment" }, ...choices.segments.map((s) => ({ value: s.id, label: s.name }))]}
          />
          <Field
            label="Tags"
            name="tags"
            defaultValue={values.tags}
            placeholder="e.g. nakuru, vip"
            hint={choices.tags.length ? `Yours: ${choices.tags.slice(0, 12).join(", ")}${choices.tags.length > 12 ? "…" : ""}` : undefined}
          />
        </div>
        <CheckboxField label="Everyone who opted in" name="everyone" defaultChecked={values.everyone} className="mb-4" />
        <div className="grid gap-x-4 sm:grid-cols-2">
          <TextareaField
            label="Phone numbers"
            name="phones"
            defaultValue={values.phones}
            hint="Pasted: one a line, or separated by commas (0712 345 678 or +254 712 345 678)."
          />
          <FileField
            label="Or upload a list"
            name="file"
            accept=".csv,.txt,text/csv,text/plain"
            hint={`A CSV or text file of up to ${formatNumber(LIST_MAX)} numbers.`}
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
        <legend className="font-semibold text-slate-900">When</legend>
        <div className="mt-3 flex flex-wrap gap-6 text-sm">
          <label className="flex items-center gap-2">
            <input type="radio" name="when" value="now" defaultChecked={values.when === "now"} /> Send now
          </label>
          <label className="flex items-center gap-2">
            <input type="radio" name="when" value="later" defaultChecked={values.when === "later"} /> Schedule
          </label>
        </div>
        <div className="mt-4 grid gap-x-4 sm:grid-cols-2">
          <Field
            label="Date"
            type="date"
            name="date"
            defaultValue={values.date}
            errors={errors.scheduledFor ? [errors.scheduledFor] : undefined}
            hint={`${zoneWords()}, your organisation's time zone. Used when Schedule is chosen.`}
          />
          <Field label="Time" type="time" name="time" defaultValue={values.time} />
        </div>
      </fieldset>
    </Card>
  );
}
