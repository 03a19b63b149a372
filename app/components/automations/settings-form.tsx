import type { ReactNode } from "react";
import { Form } from "react-router";
import { getFormProps, getInputProps, getTextareaProps, type FieldMetadata } from "~/components/ui/form-state";
import type { OpeningState } from "~/.server/domains/automations/page";
import {
  AUTO_TEXT_MAX,
  FORM_RANGES,
  FORM_WEEKDAYS,
  rangeField,
  weekdayWords,
  type FormWeekday,
  type RangeField,
} from "~/lib/schemas/automations-rules";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { CheckboxField, FormError, TextareaField } from "~/components/ui/field";
import { Notice } from "~/components/ui/notice";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { formatNumber, formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazySettingsSchema = lazySchema(() => import("~/lib/schemas/automations"), "AutomationSettingsSchema");

type Result = Parameters<typeof useSchemaForm>[1];

/** Open now, or closed and when it opens (in the organisation's time zone, as every date of the page). */
function openingWords(opening: OpeningState) {
  switch (opening.state) {
    case "open":
      return m.automations_open_now();
    case "holiday_mode":
      return m.automations_closed_holiday_mode();
    case "no_hours":
      return m.automations_no_hours();
    case "closed":
      return opening.opens ? m.automations_closed_now_opens({ when: formatWhen(opening.opens) }) : m.automations_closed_now();
  }
}

/** Whether the organisation is open now by its saved hours. */
export function OpeningNotice({ opening }: { opening: OpeningState }) {
  return <Notice tone={opening.state === "open" ? "success" : "info"}>{openingWords(opening)}</Notice>;
}

/** A weekday's opening times' fields, first to last. */
function dayRanges(fields: Record<RangeField, FieldMetadata>, day: FormWeekday) {
  return FORM_RANGES.map((index) => ({
    index,
    from: fields[rangeField("from", day, index)],
    to: fields[rangeField("to", day, index)],
  }));
}

/** One opening time's end: a time box labelled with its day and place (its error is said under the day's row). */
function TimeBox({ field, caption, label }: { field: FieldMetadata; caption: string; label: string }) {
  return (
    <label className="grid w-32 gap-1 text-xs font-medium text-slate-600">
      {caption}
      <input {...getInputProps(field, { type: "time" })} key={field.key} aria-label={label} className="field-input" />
    </label>
  );
}

/**
 * The welcome and away messages and the business hours, saved whole with one button. Without the
 * permission to change them, the same form is shown with every control disabled and no button.
 */
export function AutomationSettingsForm({
  values,
  result,
  canManage,
  zoneLine,
}: {
  values: Record<string, string>;
  result: Result;
  canManage: boolean;
  /** Which time zone the hours are in, and where to change it. */
  zoneLine: ReactNode;
}) {
  const [form, fields] = useSchemaForm(lazySettingsSchema, result, { id: "automation-settings", defaultValue: values });
  const hoursErrors = form.allErrors.hours;
  const textHint = m.automations_text_hint({ max: formatNumber(AUTO_TEXT_MAX) });
  return (
    <Form method="post" {...getFormProps(form)} className="grid max-w-3xl gap-4">
      <FormError id={form.errorId} errors={form.errors} />
      <fieldset disabled={!canManage} className="grid min-w-0 gap-4">
        <Card>
          <CardHeader title={m.automations_welcome_legend()} />
          <div className="mt-4 grid gap-3">
            <CheckboxField
              label={m.automations_welcome_enabled()}
              errors={fields.welcomeEnabled.errors}
              {...getInputProps(fields.welcomeEnabled, { type: "checkbox" })}
              key={fields.welcomeEnabled.key}
            />
            <TextareaField
              label={m.automations_welcome_text()}
              rows={3}
              hint={textHint}
              errors={fields.welcomeText.errors}
              {...getTextareaProps(fields.welcomeText)}
              key={fields.welcomeText.key}
            />
          </div>
        </Card>
        <Card>
          <CardHeader title={m.automations_away_legend()} />
          <div className="mt-4 grid gap-3">
            <CheckboxField
              label={m.automations_away_enabled()}
              errors={fields.awayEnabled.errors}
              {...getInputProps(fields.awayEnabled, { type: "checkbox" })}
              key={fields.awayEnabled.key}
            />
            <TextareaField
              label={m.automations_away_text()}
              rows={3}
              hint={textHint}
              errors={fields.awayText.errors}
              {...getTextareaProps(fields.awayText)}
              key={fields.awayText.key}
            />
          </div>
        </Card>
        <Card>
          <fieldset className="min-w-0" aria-describedby="automation-hours-hint automation-hours-error">
            <legend className="card-title">{m.automations_hours_legend()}</legend>
            <p id="automation-hours-hint" className="card-note">
              {m.automations_hours_hint()} {zoneLine}
            </p>
            <p id="automation-hours-error" className="field-error">
              {hoursErrors?.[0] ?? ""}
            </p>
            <div className="mt-2 divide-y divide-slate-100">
              {FORM_WEEKDAYS.map((day) => {
                const name = weekdayWords(day);
                const ranges = dayRanges(fields, day);
                const refused = ranges.flatMap((range) => [range.from, range.to]).filter((field) => field.errors?.length);
                return (
                  <div key={day} className="grid gap-2 py-3 sm:grid-cols-[8rem_1fr]">
                    <p className="pt-5 text-sm font-medium text-slate-900">{name}</p>
                    <div className="grid gap-2">
                      {ranges.map((range) => (
                        <div key={range.index} className="flex flex-wrap gap-2">
                          <TimeBox
                            field={range.from}
                            caption={m.automations_opens()}
                            label={m.automations_opens_label({ day: name, n: range.index + 1 })}
                          />
                          <TimeBox
                            field={range.to}
                            caption={m.automations_closes()}
                            label={m.automations_closes_label({ day: name, n: range.index + 1 })}
                          />
                        </div>
                      ))}
                      {refused.map((field) => (
                        <p key={field.name} id={field.errorId} className="text-sm text-red-600">
                          {field.errors![0]}
                        </p>
                      ))}
                    </div>
                  </div>
                );
              })}
            </div>
          </fieldset>
        </Card>
        <Card>
          <div className="grid gap-3">
            <TextareaField
              label={m.automations_holidays()}
              rows={4}
              spellCheck={false}
              hint={m.automations_holidays_hint()}
              errors={fields.holidays.errors}
              {...getTextareaProps(fields.holidays)}
              key={fields.holidays.key}
            />
            <CheckboxField
              label={m.automations_holiday_mode()}
              hint={m.automations_holiday_mode_hint()}
              errors={fields.holidayMode.errors}
              {...getInputProps(fields.holidayMode, { type: "checkbox" })}
              key={fields.holidayMode.key}
            />
          </div>
        </Card>
      </fieldset>
      {canManage ? (
        <div>
          <Button type="submit">{m.automations_hours_save()}</Button>
        </div>
      ) : null}
    </Form>
  );
}
