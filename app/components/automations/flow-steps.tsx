import type { ReactNode } from "react";
import { Form } from "react-router";
import { ArrowDown, ArrowUp, Pencil, Trash2 } from "~/components/ui/icons";
import { Button, ButtonLink } from "~/components/ui/button";
import { CheckboxField, Field, SelectField, TextareaField } from "~/components/ui/field";
import type { FlowStep } from "~/.server/domains/automations/flows/steps";
import {
  END,
  FLOW_BRANCH_OPERATORS,
  FLOW_BRANCH_SOURCES,
  FLOW_BUTTONS_MAX,
  FLOW_MEDIA_KINDS,
  FLOW_QUESTION_INPUTS,
  FLOW_ROWS_MAX,
  FLOW_SET_ACTIONS,
  FLOW_TEXT_MAX,
  FLOW_TRIES_MAX,
  FLOW_VALIDATIONS,
  FLOW_WAIT_MAX,
  FLOW_STEPS_MAX,
  NEW_TARGET,
  NEW_TARGET_TYPES,
  NEXT,
  stepTypeWords,
  type FlowStepType,
} from "~/lib/schemas/flows";
import type { StepValues } from "~/lib/schemas/flow-form";
import { formatNumber } from "~/lib/dates";
import { PaymentStepFields } from "./flow-payment-step";
import { ProductsFields, productKindWords, type OfferedProducts } from "./flow-products-step";
import { m } from "~/paraglide/messages";

/** Where a step leads, in words: "the next step", "the end", "step 3". */
export function targetWords(to: string, steps: readonly FlowStep[]): string {
  if (to === NEXT) return m.automations_flows_target_next();
  if (to === END) return m.automations_flows_target_end();
  const at = steps.findIndex((s) => s.id === to);
  return at < 0 ? m.automations_flows_target_end() : m.automations_flows_target_step({ place: at + 1 });
}

const choiceWords = (values: readonly string[]) => values.join(" · ");

/** One line (or two) saying what a step does, its branches as "go to step N". */
export function stepSummary(step: FlowStep, steps: readonly FlowStep[]): string[] {
  switch (step.type) {
    case "message":
      return [
        step.text,
        ...(step.buttons.length ? [m.automations_flows_summary_buttons({ choices: choiceWords(step.buttons) })] : []),
        ...(step.rows.length ? [m.automations_flows_summary_list({ choices: choiceWords(step.rows) })] : []),
        ...(step.mediaUrl ? [m.automations_flows_summary_media({ url: step.mediaUrl })] : []),
      ];
    case "question":
      return [
        step.text,
        ...(step.choices.length ? [m.automations_flows_summary_buttons({ choices: choiceWords(step.choices) })] : []),
        m.automations_flows_summary_saves({ variable: step.variable, check: validationWords(step.validate) }),
        m.automations_flows_summary_give_up({ tries: step.maxTries, target: targetWords(step.giveUpTo, steps) }),
      ];
    case "branch":
      return [
        m.automations_flows_summary_branch({
          subject: step.source === "answer" ? m.automations_flows_source_answer() : `${sourceWords(step.source)} ${step.key}`,
          condition: operatorWords(step.operator),
          value: step.value,
        }),
        m.automations_flows_summary_then({ target: targetWords(step.then, steps) }),
        m.automations_flows_summary_else({ target: targetWords(step.else, steps) }),
      ];
    case "set":
      return [`${setWords(step.action)}: ${step.key}${step.action === "field" ? ` = ${step.value}` : ""}`];
    case "http":
      return [`${step.method} ${step.url}`, m.automations_flows_summary_http_saves({ variable: step.saveAs })];
    case "wait":
      return [m.automations_flows_summary_wait({ minutes: formatNumber(step.minutes) })];
    case "handover":
      return [step.userId ? m.automations_flows_summary_handover_member() : m.automations_flows_summary_handover_any()];
    case "payment":
      return [
        m.automations_flows_summary_payment({ amount: step.amount, description: step.description }),
        m.automations_flows_summary_paid({ target: targetWords(step.paid, steps) }),
        m.automations_flows_summary_unpaid({ target: targetWords(step.else, steps) }),
      ];
    case "products":
      return [
        step.kind === "catalog_message"
          ? productKindWords(step.kind)
          : m.automations_flows_summary_products({ kind: productKindWords(step.kind), count: step.productIds.length }),
        ...(step.text ? [step.text] : []),
      ];
    case "end":
      return [step.conversion ? m.automations_flows_summary_end_conversion() : m.automations_flows_summary_end()];
  }
}

export function validationWords(value: (typeof FLOW_VALIDATIONS)[number]): string {
  switch (value) {
    case "any":
      return m.automations_flows_validate_any();
    case "phone":
      return m.automations_flows_validate_phone();
    case "number":
      return m.automations_flows_validate_number();
    case "email":
      return m.automations_flows_validate_email();
    case "date":
      return m.automations_flows_validate_date();
    case "choice":
      return m.automations_flows_validate_choice();
  }
}

function sourceWords(value: (typeof FLOW_BRANCH_SOURCES)[number]): string {
  switch (value) {
    case "answer":
      return m.automations_flows_source_answer();
    case "variable":
      return m.automations_flows_source_variable();
    case "field":
      return m.automations_flows_source_field();
    case "tag":
      return m.automations_flows_source_tag();
  }
}

function operatorWords(value: (typeof FLOW_BRANCH_OPERATORS)[number]): string {
  switch (value) {
    case "equals":
      return m.automations_flows_operator_equals();
    case "contains":
      return m.automations_flows_operator_contains();
    case "one_of":
      return m.automations_flows_operator_one_of();
    case "empty":
      return m.automations_flows_operator_empty();
  }
}

function setWords(value: (typeof FLOW_SET_ACTIONS)[number]): string {
  switch (value) {
    case "field":
      return m.automations_flows_set_field();
    case "add_tag":
      return m.automations_flows_set_add_tag();
    case "remove_tag":
      return m.automations_flows_set_remove_tag();
  }
}

function inputWords(value: (typeof FLOW_QUESTION_INPUTS)[number]): string {
  switch (value) {
    case "text":
      return m.automations_flows_input_text();
    case "buttons":
      return m.automations_flows_input_buttons();
    case "list":
      return m.automations_flows_input_list();
  }
}

/**
 * The steps a step may lead to: the next, the end, any other step by its place, or a new step of a
 * kind, added and filled in next (while the flow has room for it).
 */
function targetOptions(steps: readonly FlowStep[], self: string | null, withNext: boolean) {
  const room = steps.length + (self ? 0 : 1) + 2 <= FLOW_STEPS_MAX;
  return [
    ...(withNext ? [{ value: NEXT, label: m.automations_flows_target_next() }] : []),
    { value: END, label: m.automations_flows_target_end() },
    ...steps
      .map((s, i) => ({ s, i }))
      .filter(({ s }) => s.id !== self)
      .map(({ s, i }) => ({ value: s.id, label: `${m.automations_flows_target_step({ place: i + 1 })}: ${stepTypeWords(s.type)}` })),
    ...(room
      ? NEW_TARGET_TYPES.map((type) => ({
          value: `${NEW_TARGET}${type}`,
          label: m.automations_flows_target_new({ kind: stepTypeWords(type) }),
        }))
      : []),
  ];
}

/** A builder's row: a step's place, kind and summary, with Edit, Move up and down and Delete when allowed. */
export function StepItem({
  step,
  steps,
  place,
  canManage,
}: {
  step: FlowStep;
  steps: readonly FlowStep[];
  place: number;
  canManage: boolean;
}) {
  return (
    <li className="rounded-lg border border-slate-200 p-3" id={`step-${step.id}`}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0 flex-1">
          <p className="font-medium text-slate-900">{m.automations_flows_step_heading({ place, type: stepTypeWords(step.type) })}</p>
          {stepSummary(step, steps).map((line, i) => (
            <p key={i} className={`text-sm break-words ${i ? "text-slate-600" : "text-slate-800"}`}>
              {line}
            </p>
          ))}
        </div>
        {canManage ? (
          <div className="flex flex-wrap gap-1">
            <ButtonLink
              to={`?step=${step.id}#step-form`}
              variant="secondary"
              size="sm"
              aria-label={m.automations_flows_edit_step_label({ place })}
            >
              <Pencil className="size-4" aria-hidden /> {m.automations_flows_edit()}
            </ButtonLink>
            <StepPost
              stepId={step.id}
              intent="move-step"
              fields={{ direction: "up" }}
              label={m.automations_flows_move_up_label({ place })}
              hidden={place === 1}
            >
              <ArrowUp className="size-4" aria-hidden />
            </StepPost>
            <StepPost
              stepId={step.id}
              intent="move-step"
              fields={{ direction: "down" }}
              label={m.automations_flows_move_down_label({ place })}
              hidden={place === steps.length}
            >
              <ArrowDown className="size-4" aria-hidden />
            </StepPost>
            <StepPost stepId={step.id} intent="delete-step" label={m.automations_flows_delete_step_label({ place })}>
              <Trash2 className="size-4" aria-hidden />
            </StepPost>
          </div>
        ) : null}
      </div>
    </li>
  );
}

function StepPost({
  stepId,
  intent,
  label,
  fields = {},
  hidden = false,
  children,
}: {
  stepId: string;
  intent: string;
  label: string;
  fields?: Record<string, string>;
  hidden?: boolean;
  children: ReactNode;
}) {
  if (hidden) return null;
  return (
    <Form method="post" className="inline">
      <input type="hidden" name="stepId" value={stepId} />
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Button type="submit" name="intent" value={intent} variant="secondary" size="sm" aria-label={label} title={label}>
        {children}
      </Button>
    </Form>
  );
}

type Errors = Record<string, string[] | undefined>;
interface FormState {
  values: StepValues;
  errors: Errors;
}

// What the hints show as examples of a variable: written as members write them, never translated.
const EXAMPLE_ANSWER = "{{name}}";
const EXAMPLE_CONTACT = "{{contact.name}}";
const EXAMPLE_ORDER = "{{order}}";
const EXAMPLE_HTTP = "{{http.status}}";
const METHODS = [
  { value: "GET", label: "GET" },
  { value: "POST", label: "POST" },
];

function StepText({ form, name, label, hint }: { form: FormState; name: string; label: string; hint?: string }) {
  return <Field name={name} label={label} hint={hint} defaultValue={form.values[name] ?? ""} errors={form.errors[name]} />;
}

function StepArea({ form, name, label, hint }: { form: FormState; name: string; label: string; hint?: string }) {
  return (
    <TextareaField
      name={name}
      label={label}
      hint={hint}
      defaultValue={form.values[name] ?? ""}
      errors={form.errors[name]}
      maxLength={FLOW_TEXT_MAX}
    />
  );
}

function StepSelect({
  form,
  name,
  label,
  options,
}: {
  form: FormState;
  name: string;
  label: string;
  options: { value: string; label: string }[];
}) {
  return (
    <SelectField
      name={name}
      label={label}
      defaultValue={form.values[name] ?? options[0]?.value}
      errors={form.errors[name]}
      options={options}
    />
  );
}

function StepNumber({ form, name, label, min, max }: { form: FormState; name: string; label: string; min: number; max: number }) {
  return (
    <Field name={name} type="number" min={min} max={max} label={label} defaultValue={form.values[name] ?? ""} errors={form.errors[name]} />
  );
}

/** A step's form, one kind at a time: a new step (`stepId` empty) or a change to one. */
export function StepForm({
  type,
  stepId,
  values,
  errors,
  steps,
  members,
  shortcodes = [],
  products = null,
  cancelTo,
  fresh = false,
}: {
  type: FlowStepType;
  stepId: string | null;
  values: StepValues;
  errors: Errors;
  steps: readonly FlowStep[];
  members: { id: string; name: string }[];
  shortcodes?: { id: string; label: string }[];
  /** A products step's choices: the ticked products and at most 50 others found (null for other steps). */
  products?: OfferedProducts | null;
  cancelTo: string;
  /** A step just added for another's target (an end until this form is saved). */
  fresh?: boolean;
}) {
  const f: FormState = { values, errors };
  const place = stepId ? steps.findIndex((s) => s.id === stepId) + 1 : steps.length + 1;
  const textHint = m.automations_flows_field_text_hint({ answer: EXAMPLE_ANSWER, contact: EXAMPLE_CONTACT });
  const targets = targetOptions(steps, stepId, true);
  return (
    <Form method="post" className="space-y-4 rounded-lg border border-brand-200 bg-brand-50/40 p-4" id="step-form">
      <h3 className="font-semibold text-slate-900">
        {stepId
          ? m.automations_flows_edit_step_title({ place, type: stepTypeWords(type) })
          : m.automations_flows_add_step_title({ type: stepTypeWords(type) })}
      </h3>
      {fresh ? <p className="text-sm text-slate-700">{m.automations_flows_new_step_notice({ place })}</p> : null}
      <input type="hidden" name="type" value={type} />
      <input type="hidden" name="stepId" value={stepId ?? ""} />
      {errors.type ? <p className="text-sm text-red-700">{errors.type.join(" ")}</p> : null}
      {type === "message" ? (
        <>
          <StepArea form={f} name="text" label={m.automations_flows_field_text()} hint={textHint} />
          <StepArea
            form={f}
            name="buttons"
            label={m.automations_flows_field_buttons()}
            hint={m.automations_flows_field_buttons_hint({ max: FLOW_BUTTONS_MAX })}
          />
          <StepArea
            form={f}
            name="rows"
            label={m.automations_flows_field_rows()}
            hint={m.automations_flows_field_rows_hint({ max: FLOW_ROWS_MAX })}
          />
          <StepText form={f} name="listButton" label={m.automations_flows_field_list_button()} />
          <StepText
            form={f}
            name="mediaUrl"
            label={m.automations_flows_field_media_url()}
            hint={m.automations_flows_field_media_url_hint()}
          />
          <StepSelect
            form={f}
            name="mediaKind"
            label={m.automations_flows_field_media_kind()}
            options={FLOW_MEDIA_KINDS.map((k) => ({ value: k, label: mediaWords(k) }))}
          />
        </>
      ) : null}
      {type === "question" ? (
        <>
          <StepArea form={f} name="text" label={m.automations_flows_field_question()} hint={textHint} />
          <StepSelect
            form={f}
            name="input"
            label={m.automations_flows_field_input()}
            options={FLOW_QUESTION_INPUTS.map((v) => ({ value: v, label: inputWords(v) }))}
          />
          <StepArea
            form={f}
            name="choices"
            label={m.automations_flows_field_choices()}
            hint={m.automations_flows_field_choices_hint({ buttons: FLOW_BUTTONS_MAX, rows: FLOW_ROWS_MAX })}
          />
          <StepText form={f} name="listButton" label={m.automations_flows_field_list_button()} />
          <StepSelect
            form={f}
            name="validate"
            label={m.automations_flows_field_validate()}
            options={FLOW_VALIDATIONS.map((v) => ({ value: v, label: validationWords(v) }))}
          />
          <StepText
            form={f}
            name="variable"
            label={m.automations_flows_field_variable()}
            hint={m.automations_flows_field_variable_hint({ example: EXAMPLE_ORDER })}
          />
          <StepArea form={f} name="retryText" label={m.automations_flows_field_retry_text()} />
          <StepNumber form={f} name="maxTries" label={m.automations_flows_field_max_tries()} min={1} max={FLOW_TRIES_MAX} />
          <StepSelect form={f} name="giveUpTo" label={m.automations_flows_field_give_up_to()} options={targets} />
        </>
      ) : null}
      {type === "branch" ? (
        <>
          <StepSelect
            form={f}
            name="source"
            label={m.automations_flows_field_source()}
            options={FLOW_BRANCH_SOURCES.map((v) => ({ value: v, label: sourceWords(v) }))}
          />
          <StepText form={f} name="key" label={m.automations_flows_field_key()} hint={m.automations_flows_field_key_hint()} />
          <StepSelect
            form={f}
            name="operator"
            label={m.automations_flows_field_operator()}
            options={FLOW_BRANCH_OPERATORS.map((v) => ({ value: v, label: operatorWords(v) }))}
          />
          <StepText form={f} name="value" label={m.automations_flows_field_value()} hint={m.automations_flows_field_value_hint()} />
          <StepSelect form={f} name="then" label={m.automations_flows_field_then()} options={targets} />
          <StepSelect form={f} name="else" label={m.automations_flows_field_else()} options={targets} />
        </>
      ) : null}
      {type === "set" ? (
        <>
          <StepSelect
            form={f}
            name="action"
            label={m.automations_flows_field_action()}
            options={FLOW_SET_ACTIONS.map((v) => ({ value: v, label: setWords(v) }))}
          />
          <StepText form={f} name="key" label={m.automations_flows_field_set_key()} hint={m.automations_flows_field_set_key_hint()} />
          <StepText form={f} name="value" label={m.automations_flows_field_set_value()} />
        </>
      ) : null}
      {type === "http" ? (
        <>
          <StepSelect form={f} name="method" label={m.automations_flows_field_method()} options={METHODS} />
          <StepText form={f} name="url" label={m.automations_flows_field_url()} hint={m.automations_flows_field_url_hint()} />
          <StepArea
            form={f}
            name="body"
            label={m.automations_flows_field_body()}
            hint={m.automations_flows_field_body_hint({ example: EXAMPLE_ORDER })}
          />
          <StepText
            form={f}
            name="saveAs"
            label={m.automations_flows_field_save_as()}
            hint={m.automations_flows_field_save_as_hint({ example: EXAMPLE_HTTP })}
          />
        </>
      ) : null}
      {type === "wait" ? (
        <StepNumber form={f} name="minutes" label={m.automations_flows_field_minutes()} min={1} max={FLOW_WAIT_MAX} />
      ) : null}
      {type === "handover" ? (
        <StepSelect
          form={f}
          name="userId"
          label={m.automations_flows_field_member()}
          options={[
            { value: "", label: m.automations_flows_member_least_busy() },
            ...members.map((member) => ({ value: member.id, label: member.name })),
          ]}
        />
      ) : null}
      {type === "payment" ? <PaymentStepFields values={values} errors={errors} targets={targets} shortcodes={shortcodes} /> : null}
      {type === "products" && products ? <ProductsFields values={values} errors={errors} offered={products} /> : null}
      {type === "end" ? (
        <>
          <p className="text-sm text-slate-700">{m.automations_flows_summary_end()}</p>
          <CheckboxField
            name="conversion"
            label={m.automations_flows_field_conversion()}
            defaultChecked={values.conversion === "true" || values.conversion === "on"}
            errors={f.errors.conversion}
          />
        </>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" name="intent" value="save-step">
          {stepId ? m.automations_flows_save_step() : m.automations_flows_add_step()}
        </Button>
        <ButtonLink to={cancelTo} variant="secondary">
          {m.automations_flows_cancel()}
        </ButtonLink>
      </div>
    </Form>
  );
}

function mediaWords(kind: (typeof FLOW_MEDIA_KINDS)[number]): string {
  switch (kind) {
    case "image":
      return m.automations_flows_media_image();
    case "document":
      return m.automations_flows_media_document();
    case "video":
      return m.automations_flows_media_video();
  }
}
