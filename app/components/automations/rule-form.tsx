import { Form } from "react-router";
import { getFormProps, getInputProps, getSelectProps, getTextareaProps } from "~/components/ui/form-state";
import type { TryResult } from "~/.server/domains/automations/page";
import {
  AUTOMATION_MATCH_TYPES,
  LEAST_BUSY,
  THEN_ASSISTANT,
  matchTypeWords,
  RULE_BUTTON_MAX,
  RULE_BUTTONS_MAX,
  RULE_COOLDOWN_MAX_MINUTES,
  RULE_LIST_ROW_MAX,
  RULE_LIST_ROWS_MAX,
  RULE_NAME_MAX,
  RULE_REPLY_MAX,
  THRESHOLD_MAX,
  THRESHOLD_MIN,
  THRESHOLD_STEP,
  type AutomationMatchType,
} from "~/lib/schemas/automations-rules";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, FormError, RadioGroupField, SelectField, TextareaField } from "~/components/ui/field";
import { Notice } from "~/components/ui/notice";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { formatNumber } from "~/lib/dates";
import { ProductsFields, type OfferedProducts } from "./flow-products-step";
import { m } from "~/paraglide/messages";

// Loaded when a form is first used (decision 061).
const lazyRuleSchema = lazySchema(() => import("~/lib/schemas/automations"), "RuleFormSchema");
const lazyTrySchema = lazySchema(() => import("~/lib/schemas/automations"), "TryRuleSchema");
const TEXT_INPUT = { type: "text" } as const;

type Result = Parameters<typeof useSchemaForm>[1];

/** Each match type's one line, in the request's language. */
function matchTypeHint(type: AutomationMatchType) {
  switch (type) {
    case "exact":
      return m.automations_match_exact_hint();
    case "contains":
      return m.automations_match_contains_hint();
    case "starts_with":
      return m.automations_match_starts_with_hint();
    case "fuzzy":
      return m.automations_match_fuzzy_hint();
    case "regex":
      return m.automations_match_regex_hint();
  }
}

/** An ad customers came from: its id at Meta, and its headline with the id. */
export interface AdChoice {
  id: string;
  label: string;
}

/** The stored value of a rule for any ad (from-ad.ts's ANY_AD; the browser cannot import the server's). */
const ANY_AD_CHOICE = "any";

export interface RuleChoices {
  /** The numbers a rule may be kept to ("" is every number). */
  numbers: { id: string; label: string }[];
  /** The Click-to-WhatsApp ads customers came from, a rule may keep to one ("" every message, "any" any ad). */
  ads: AdChoice[];
  /** Members who answer chats ("" is nobody). */
  members: { id: string; name: string }[];
  /** The organisation's custom contact fields ("" is none). */
  fields: { key: string; label: string }[];
  /** The organisation's flows a rule may start ("" is none). */
  flows: { id: string; name: string }[];
  /** Approved templates a rule may send instead of a text ("" is none): `name|language`. */
  templates: { value: string; name: string; language: string }[];
  /** The products the catalog holds now, a "Send products" action's choices (the picker's: ticked + 50 found). */
  products: OfferedProducts;
}

const PRODUCT_FIELDS = ["productKind", "productIds", "productHeader", "productBody"] as const;

/** The "Send products" fields' values as sent last (or saved), and their errors. */
function productsState(fields: Record<(typeof PRODUCT_FIELDS)[number], { initialValue?: unknown; errors?: string[] }>) {
  const names = PRODUCT_FIELDS;
  const text = (value: unknown) => (Array.isArray(value) ? value.join("\n") : typeof value === "string" ? value : "");
  return {
    values: Object.fromEntries(names.map((name) => [name, text(fields[name]?.initialValue)])),
    errors: Object.fromEntries(names.map((name) => [name, fields[name]?.errors])),
  };
}

/**
 * A keyword rule's form, new or saved: its name, how it matches and on what, the number it answers
 * on, its cooldown, and what it does. It posts `intent=save`; the server checks every field and says
 * what is wrong at the field, with or without JavaScript.
 */
export function RuleForm({
  id,
  values,
  choices,
  result,
  submitLabel,
  cancelTo,
}: {
  id: string;
  values: Record<string, string>;
  choices: RuleChoices;
  result: Result;
  submitLabel: string;
  cancelTo: string;
}) {
  const [form, fields] = useSchemaForm(lazyRuleSchema, result, { id, defaultValue: values });
  return (
    <Form method="post" {...getFormProps(form)} className="grid max-w-3xl gap-4">
      <FormError id={form.errorId} errors={form.errors} />
      <Card>
        <div className="grid gap-4">
          <Field
            label={m.automations_field_name()}
            markRequired
            autoComplete="off"
            maxLength={RULE_NAME_MAX}
            hint={m.automations_field_name_hint({ max: RULE_NAME_MAX })}
            errors={fields.name.errors}
            {...getInputProps(fields.name, TEXT_INPUT)}
            key={fields.name.key}
          />
          <RadioGroupField
            legend={m.automations_field_match()}
            name={fields.matchType.name}
            id={fields.matchType.id}
            defaultValue={typeof fields.matchType.initialValue === "string" ? fields.matchType.initialValue : undefined}
            errors={fields.matchType.errors}
            key={fields.matchType.key}
            options={AUTOMATION_MATCH_TYPES.map((type) => ({ value: type, label: matchTypeWords(type), description: matchTypeHint(type) }))}
          />
          <TextareaField
            label={m.automations_field_keywords()}
            markRequired
            spellCheck={false}
            rows={5}
            hint={m.automations_field_keywords_hint()}
            errors={fields.keywords.errors}
            {...getTextareaProps(fields.keywords)}
            key={fields.keywords.key}
          />
          <div className="grid gap-4 sm:grid-cols-2">
            <Field
              label={m.automations_field_threshold()}
              inputMode="decimal"
              min={THRESHOLD_MIN}
              max={THRESHOLD_MAX}
              step={THRESHOLD_STEP}
              hint={m.automations_field_threshold_hint()}
              errors={fields.threshold.errors}
              {...getInputProps(fields.threshold, { type: "number" })}
              key={fields.threshold.key}
            />
            <Field
              label={m.automations_field_cooldown()}
              inputMode="numeric"
              min={0}
              max={RULE_COOLDOWN_MAX_MINUTES}
              step={1}
              hint={m.automations_field_cooldown_hint()}
              errors={fields.cooldownMinutes.errors}
              {...getInputProps(fields.cooldownMinutes, { type: "number" })}
              key={fields.cooldownMinutes.key}
            />
          </div>
          <SelectField
            label={m.automations_field_number()}
            hint={m.automations_field_number_hint()}
            errors={fields.phoneNumberId.errors}
            {...getSelectProps(fields.phoneNumberId)}
            key={fields.phoneNumberId.key}
            options={[
              { value: "", label: m.automations_all_numbers() },
              ...choices.numbers.map((number) => ({ value: number.id, label: number.label })),
            ]}
          />
          <SelectField
            label={m.automations_field_from_ad()}
            hint={m.automations_field_from_ad_hint()}
            errors={fields.fromAd.errors}
            {...getSelectProps(fields.fromAd)}
            key={fields.fromAd.key}
            options={[
              { value: "", label: m.automations_from_ad_every_message() },
              { value: ANY_AD_CHOICE, label: m.automations_from_ad_any() },
              ...choices.ads.map((ad) => ({ value: ad.id, label: ad.label })),
            ]}
          />
        </div>
      </Card>
      <Card>
        <fieldset className="grid gap-4" aria-describedby={`${id}-actions-hint`}>
          <legend className="card-title">{m.automations_actions_legend()}</legend>
          <p id={`${id}-actions-hint`} className="-mt-2 text-sm text-slate-600">
            {m.automations_actions_hint()}
          </p>
          <TextareaField
            label={m.automations_field_reply()}
            rows={5}
            hint={m.automations_field_reply_hint({ max: formatNumber(RULE_REPLY_MAX) })}
            errors={fields.reply.errors}
            {...getTextareaProps(fields.reply)}
            key={fields.reply.key}
          />
          <TextareaField
            label={m.automations_field_buttons()}
            rows={3}
            hint={m.automations_field_buttons_hint({ max: RULE_BUTTONS_MAX, length: RULE_BUTTON_MAX })}
            errors={fields.buttons.errors}
            {...getTextareaProps(fields.buttons)}
            key={fields.buttons.key}
          />
          <div className="grid gap-4 sm:grid-cols-[1fr_2fr]">
            <Field
              label={m.automations_field_list_button()}
              autoComplete="off"
              hint={m.automations_field_list_button_hint({ length: RULE_BUTTON_MAX })}
              errors={fields.listButton.errors}
              {...getInputProps(fields.listButton, TEXT_INPUT)}
              key={fields.listButton.key}
            />
            <TextareaField
              label={m.automations_field_list_rows()}
              rows={4}
              hint={m.automations_field_list_rows_hint({ max: RULE_LIST_ROWS_MAX, length: RULE_LIST_ROW_MAX })}
              errors={fields.listRows.errors}
              {...getTextareaProps(fields.listRows)}
              key={fields.listRows.key}
            />
          </div>
          <div className="grid gap-4 sm:grid-cols-[1fr_2fr]">
            <SelectField
              label={m.automations_field_template()}
              hint={m.automations_field_template_hint()}
              errors={fields.template.errors}
              {...getSelectProps(fields.template)}
              key={fields.template.key}
              options={[
                { value: "", label: m.automations_template_none() },
                ...choices.templates.map((t) => ({ value: t.value, label: `${t.name} (${t.language})` })),
              ]}
            />
            <TextareaField
              label={m.automations_field_template_parameters()}
              rows={3}
              hint={m.automations_field_template_parameters_hint()}
              errors={fields.templateParameters.errors}
              {...getTextareaProps(fields.templateParameters)}
              key={fields.templateParameters.key}
            />
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field
              label={m.automations_field_add_tags()}
              autoComplete="off"
              spellCheck={false}
              hint={m.automations_field_tags_hint()}
              errors={fields.addTags.errors}
              {...getInputProps(fields.addTags, TEXT_INPUT)}
              key={fields.addTags.key}
            />
            <Field
              label={m.automations_field_remove_tags()}
              autoComplete="off"
              spellCheck={false}
              hint={m.automations_field_tags_hint()}
              errors={fields.removeTags.errors}
              {...getInputProps(fields.removeTags, TEXT_INPUT)}
              key={fields.removeTags.key}
            />
          </div>
          <SelectField
            label={m.automations_field_assign()}
            hint={m.automations_field_assign_hint()}
            errors={fields.assignTo.errors}
            {...getSelectProps(fields.assignTo)}
            key={fields.assignTo.key}
            options={[
              { value: "", label: m.automations_assign_nobody() },
              { value: LEAST_BUSY, label: m.automations_assign_least_busy() },
              ...choices.members.map((member) => ({ value: member.id, label: member.name })),
            ]}
          />
          <SelectField
            label={m.automations_field_then()}
            hint={m.automations_field_then_hint()}
            errors={fields.then.errors}
            {...getSelectProps(fields.then)}
            key={fields.then.key}
            options={[
              { value: "", label: m.automations_then_nothing() },
              { value: THEN_ASSISTANT, label: m.automations_then_assistant() },
            ]}
          />
          <Field
            label={m.automations_field_webhook()}
            inputMode="url"
            autoComplete="off"
            spellCheck={false}
            maxLength={2048}
            hint={m.automations_field_webhook_hint()}
            errors={fields.webhookUrl.errors}
            {...getInputProps(fields.webhookUrl, { type: "url" })}
            key={fields.webhookUrl.key}
          />
          {choices.fields.length ? (
            <div className="grid gap-4 sm:grid-cols-2">
              <SelectField
                label={m.automations_field_set_field()}
                hint={m.automations_field_set_field_hint()}
                errors={fields.fieldKey.errors}
                {...getSelectProps(fields.fieldKey)}
                key={fields.fieldKey.key}
                options={[
                  { value: "", label: m.automations_set_field_none() },
                  ...choices.fields.map((field) => ({ value: field.key, label: field.label })),
                ]}
              />
              <Field
                label={m.automations_field_set_value()}
                autoComplete="off"
                maxLength={1000}
                hint={m.automations_field_set_value_hint()}
                errors={fields.fieldValue.errors}
                {...getInputProps(fields.fieldValue, TEXT_INPUT)}
                key={fields.fieldValue.key}
              />
            </div>
          ) : null}
          <fieldset className="grid gap-4 rounded-lg border border-slate-200 p-3">
            <legend className="px-1 text-sm font-medium text-slate-900">{m.automations_products_legend()}</legend>
            <ProductsFields
              {...productsState(fields)}
              offered={choices.products}
              names={{ kind: "productKind", productIds: "productIds", header: "productHeader", text: "productBody" }}
              withNone
            />
          </fieldset>
          <SelectField
            label={m.automations_field_flow()}
            hint={m.automations_field_flow_hint()}
            errors={fields.flowId.errors}
            {...getSelectProps(fields.flowId)}
            key={fields.flowId.key}
            options={[
              { value: "", label: m.automations_flow_none() },
              ...choices.flows.map((flow) => ({ value: flow.id, label: flow.name })),
            ]}
          />
        </fieldset>
      </Card>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" name="intent" value="save">
          {submitLabel}
        </Button>
        <ButtonLink to={cancelTo} variant="secondary">
          {m.automations_cancel()}
        </ButtonLink>
      </div>
    </Form>
  );
}

/** Why the sample's customer is not one the rule answers: it keeps to an ad they did not come from. */
function needsAdWords(needsAd: string, ads: readonly AdChoice[]) {
  if (needsAd === ANY_AD_CHOICE) return m.automations_try_needs_any_ad();
  return m.automations_try_needs_ad({ ad: ads.find((ad) => ad.id === needsAd)?.label ?? needsAd });
}

/** What "try it" found for a sample, in sentences. */
function TryAnswer({ tried, ads }: { tried: TryResult; ads: readonly AdChoice[] }) {
  if (tried.needsAd) return <Notice>{needsAdWords(tried.needsAd, ads)}</Notice>;
  if (!tried.matched) return <Notice>{m.automations_try_no_match()}</Notice>;
  return (
    <Notice
      tone={tried.earlier || !tried.enabled ? "warning" : "success"}
      title={tried.keyword ? m.automations_try_matched({ keyword: tried.keyword }) : m.automations_try_matched_ad()}
    >
      <p>
        {tried.earlier
          ? m.automations_try_earlier({ name: tried.earlier.name, position: formatNumber(tried.earlier.position) })
          : m.automations_try_answers()}
      </p>
      {tried.enabled ? null : <p className="mt-1">{m.automations_try_off()}</p>}
    </Notice>
  );
}

/**
 * "Try it" on a saved rule: a customer's message, the ad they came from (or none), and whether this rule
 * (as saved) answers it. Nothing is sent.
 */
export function TryCard({
  ruleId,
  ads,
  result,
  tried,
}: {
  ruleId: string;
  ads: readonly AdChoice[];
  result: Result;
  tried: TryResult | null;
}) {
  const [form, fields] = useSchemaForm(lazyTrySchema, result, { id: `try-rule-${ruleId}` });
  return (
    <Card className="max-w-3xl">
      <CardHeader title={m.automations_try_title()} description={m.automations_try_description()} />
      <Form method="post" {...getFormProps(form)} className="mt-4 grid gap-3">
        <FormError id={form.errorId} errors={form.errors} />
        <TextareaField
          label={m.automations_try_sample()}
          rows={2}
          errors={fields.sample.errors}
          {...getTextareaProps(fields.sample)}
          key={fields.sample.key}
        />
        <SelectField
          label={m.automations_try_from_ad()}
          errors={fields.fromAd.errors}
          {...getSelectProps(fields.fromAd)}
          key={fields.fromAd.key}
          options={[{ value: "", label: m.automations_try_no_ad() }, ...ads.map((ad) => ({ value: ad.id, label: ad.label }))]}
        />
        <div>
          <Button type="submit" name="intent" value="try" variant="secondary">
            {m.automations_try_button()}
          </Button>
        </div>
      </Form>
      {tried ? (
        <div className="mt-4" aria-live="polite">
          <TryAnswer tried={tried} ads={ads} />
        </div>
      ) : null}
    </Card>
  );
}
