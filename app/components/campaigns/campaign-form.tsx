import { Form, href } from "react-router";
import { Link } from "~/components/ui/link";
import { getFormProps, type SubmissionResult } from "~/components/ui/form-state";
import type { CampaignFormValues } from "~/lib/campaign-form";
import type { CampaignKind } from "~/lib/schemas/campaign";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, FormError, SelectField } from "~/components/ui/field";
import { useServerCheckedForm } from "~/components/ui/use-schema-form";
import { AudienceCard, WhenCard } from "./audience-fields";
import { Placeholders } from "./placeholders";
import { SmsFallbackCard } from "./sms-fallback-fields";
import { m } from "~/paraglide/messages";
import type { CampaignChoices, CampaignErrors, CampaignPicker, TemplateChoice } from "./types";

type FieldName = keyof CampaignErrors;
const FIELD_NAMES: FieldName[] = ["name", "from", "template", "parameters", "audience", "scheduledFor", "smsFallback"];

/**
 * The New Campaign and Quick Broadcast form (the edit step), on a page without React (decision 067).
 * Only the server checks it: its reply brings each message to its field and the values posted. A
 * pressed button shows itself busy through the page's script (app/assets/forms.js).
 */
export function CampaignForm({
  kind,
  choices,
  values,
  picker,
  lastResult,
  cancelTo,
}: {
  kind: CampaignKind;
  choices: CampaignChoices;
  values: CampaignFormValues;
  /** The products a product template offers (null without such a template). */
  picker: CampaignPicker | null;
  lastResult: SubmissionResult<string[]> | null | undefined;
  cancelTo: string;
}) {
  const [form, fields] = useServerCheckedForm<Record<FieldName, string>>(lastResult, { id: "campaign" });
  const errors: CampaignErrors = {};
  for (const name of FIELD_NAMES) errors[name] = fields[name].errors?.[0];
  return (
    <Form
      method="post"
      encType="multipart/form-data"
      {...getFormProps(form)}
      className="space-y-6"
      aria-label={kind === "broadcast" ? m.messaging_new_title_broadcast() : m.messaging_new_title_campaign()}
    >
      <FormError id={form.errorId} errors={form.errors} />
      <MessageCard kind={kind} choices={choices} values={values} picker={picker} errors={errors} />
      <AudienceCard choices={choices} values={values} errors={errors} />
      {kind === "campaign" ? <WhenCard values={values} errors={errors} /> : null}
      {choices.smsConnected ? <SmsFallbackCard values={values} error={errors.smsFallback} /> : null}
      <div className="flex justify-end gap-2">
        <ButtonLink to={cancelTo} variant="secondary">
          {m.messaging_cancel()}
        </ButtonLink>
        <Button type="submit" name="intent" value="review" pendingText={m.messaging_form_counting()}>
          {m.messaging_form_review()}
        </Button>
      </div>
    </Form>
  );
}

/**
 * Name, sender and template, and the chosen template's placeholders. A choice of template redraws
 * them from the server (the page with `?template=`, app/assets/live.js's data-redraws); without
 * JavaScript, Show its placeholders posts the form and the server draws it again with them.
 */
function MessageCard({
  kind,
  choices,
  values,
  picker,
  errors,
}: {
  kind: CampaignKind;
  choices: CampaignChoices;
  values: CampaignFormValues;
  picker: CampaignPicker | null;
  errors: CampaignErrors;
}) {
  const chosen = choices.templates.find((t) => t.key === values.template);
  const byName = new Map<string, TemplateChoice[]>();
  for (const t of choices.templates) byName.set(t.name, [...(byName.get(t.name) ?? []), t]);
  return (
    <Card>
      <CardHeader title={m.messaging_form_message_title()} />
      <div className="mt-4 grid gap-x-4 sm:grid-cols-2">
        <Field
          label={kind === "broadcast" ? m.messaging_form_name_optional() : m.messaging_form_campaign_name()}
          name="name"
          defaultValue={values.name}
          maxLength={80}
          markRequired={kind === "campaign"}
          errors={errors.name ? [errors.name] : undefined}
          placeholder={kind === "broadcast" ? m.messaging_form_name_placeholder_broadcast() : m.messaging_form_name_placeholder_campaign()}
        />
        {choices.senders.length ? (
          <SelectField
            label={m.messaging_form_send_from()}
            name="from"
            defaultValue={values.from || choices.senders[0]?.phoneNumberId}
            errors={errors.from ? [errors.from] : undefined}
            options={choices.senders.map((s) => ({ value: s.phoneNumberId, label: s.name ? `${s.number} (${s.name})` : s.number }))}
          />
        ) : (
          <div>
            <p className="mb-1 block text-sm font-medium text-slate-700">{m.messaging_form_send_from()}</p>
            <p className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2.5 text-sm text-amber-900" id="from-error">
              {errors.from ?? m.messaging_form_no_number()}{" "}
              <Link to={href("/whatsapp")} className="font-semibold underline">
                {m.messaging_form_connect_one()}
              </Link>
            </p>
          </div>
        )}
      </div>
      {choices.templates.length ? (
        <div className="flex flex-wrap items-end gap-3">
          <SelectField
            label={m.messaging_form_approved_template()}
            name="template"
            className="min-w-64 flex-1"
            markRequired
            defaultValue={values.template}
            data-redraws="campaign-placeholders"
            errors={errors.template ? [errors.template] : undefined}
          >
            <option value="">{m.messaging_form_choose_template()}</option>
            {[...byName].map(([name, list]) => (
              <optgroup key={name} label={name}>
                {list.map((t) => (
                  <option key={t.key} value={t.key}>
                    {t.name} ({t.language}, {t.category})
                  </option>
                ))}
              </optgroup>
            ))}
          </SelectField>
          <Button type="submit" name="intent" value="choose" variant="secondary" className="mb-6" data-redraw-fallback>
            {m.messaging_form_show_placeholders()}
          </Button>
        </div>
      ) : (
        <p className="mt-4 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2.5 text-sm text-amber-900" id="template-error">
          {errors.template ?? m.messaging_form_no_templates()}{" "}
          <Link to={href("/templates/new")} className="font-semibold underline">
            {m.messaging_form_create_template()}
          </Link>{" "}
          {m.messaging_form_wait_for_meta()}
        </p>
      )}
      <div id="campaign-placeholders">
        {chosen ? <Placeholders template={chosen} choices={choices} values={values} picker={picker} error={errors.parameters} /> : null}
        {!chosen && errors.parameters ? <FormError errors={[errors.parameters]} /> : null}
      </div>
    </Card>
  );
}
