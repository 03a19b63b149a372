import type { CampaignFormValues } from "~/lib/campaign-form";
import { FALLBACK_AFTER_MAX, FALLBACK_AFTER_MIN } from "~/lib/sms-fallback";
import { Card } from "~/components/ui/card";
import { Field, FormError, TextareaField } from "~/components/ui/field";
import { m } from "~/paraglide/messages";

/**
 * The campaign's SMS fallback (decision 152), shown only with SMS connected: off, its own text (the
 * template's values allowed) or the message's text, and after how many minutes undelivered. Plain
 * radios and fields: it works without JavaScript.
 */
export function SmsFallbackCard({ values, error }: { values: SmsFallbackValues; error: string | undefined }) {
  return (
    <Card>
      <SmsFallbackFields values={values} error={error} />
    </Card>
  );
}

type SmsFallbackValues = Pick<CampaignFormValues, "smsFallback" | "smsText" | "smsAfter">;

/**
 * The fields themselves, also an automation's (Settings → SMS, decision 159): its own legend and
 * description, and an id of its own where several are on one page.
 */
export function SmsFallbackFields({
  values,
  error,
  legend = m.sms_fallback_title(),
  description = m.sms_fallback_description(),
  id = "sms-fallback",
}: {
  values: SmsFallbackValues;
  error: string | undefined;
  legend?: string;
  description?: string;
  id?: string;
}) {
  const modes = [
    { value: "off", label: m.sms_fallback_off() },
    { value: "own", label: m.sms_fallback_own() },
    { value: "message", label: m.sms_fallback_message() },
  ] as const;
  return (
    <fieldset aria-describedby={`${id}-description`}>
      <legend className="font-semibold text-slate-900">{legend}</legend>
      <p id={`${id}-description`} className="mt-1 text-sm text-slate-600">
        {description}
      </p>
      <div className="mt-3 flex flex-wrap gap-x-6 gap-y-2 text-sm">
        {modes.map((mode) => (
          <label key={mode.value} className="flex items-center gap-2">
            <input type="radio" name="sms_fallback" value={mode.value} defaultChecked={values.smsFallback === mode.value} /> {mode.label}
          </label>
        ))}
      </div>
      {error ? <FormError errors={[error]} /> : null}
      <div className="mt-4 grid gap-x-4 sm:grid-cols-3">
        <TextareaField
          label={m.sms_fallback_text_label()}
          name="sms_text"
          className="sm:col-span-2"
          defaultValue={values.smsText}
          maxLength={1530}
          hint={m.sms_fallback_text_hint({ first: "{{1}}", second: "{{2}}" })}
        />
        <Field
          label={m.sms_fallback_after_label()}
          name="sms_after"
          type="number"
          inputMode="numeric"
          min={FALLBACK_AFTER_MIN}
          max={FALLBACK_AFTER_MAX}
          defaultValue={values.smsAfter}
          hint={m.sms_fallback_after_hint({ min: FALLBACK_AFTER_MIN, max: FALLBACK_AFTER_MAX })}
        />
      </div>
    </fieldset>
  );
}
