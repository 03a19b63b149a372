import { Form } from "react-router";
import { getFormProps, getInputProps, getTextareaProps } from "~/components/ui/form-state";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { CheckboxField, CheckboxGroupField, Field, FormError, TextareaField } from "~/components/ui/field";
import { Notice } from "~/components/ui/notice";
import { SummaryList } from "~/components/ui/summary";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import {
  handoverDetailWords,
  handoverReasonWords,
  HANDOVER_TEXT_MAX,
  INSTRUCTIONS_MAX,
  MAX_TURNS_MAX,
  MAX_TURNS_MIN,
} from "~/lib/schemas/assistant";
import { formatNumber } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { m } from "~/paraglide/messages";

// Loaded when a form is first used (decision 061).
const lazyAssistantSchema = lazySchema(() => import("~/lib/schemas/assistant-forms"), "AssistantFormSchema");
const lazyTrySchema = lazySchema(() => import("~/lib/schemas/assistant-forms"), "TryAssistantSchema");
const TEXT_INPUT = { type: "text" } as const;

type Result = Parameters<typeof useSchemaForm>[1];

export interface AssistantUsageView {
  replies: number;
  handovers: number;
  promptTokens: number;
  completionTokens: number;
  costCents: number;
  capCents: number;
}

/** This month's replies, tokens and cost against the cap. */
export function AssistantUsageSummary({ usage }: { usage: AssistantUsageView }) {
  return (
    <SummaryList
      items={[
        { label: m.automations_assistant_usage_replies(), value: formatNumber(usage.replies) },
        { label: m.automations_assistant_usage_handovers(), value: formatNumber(usage.handovers) },
        { label: m.automations_assistant_usage_tokens(), value: formatNumber(usage.promptTokens + usage.completionTokens) },
        {
          label: m.automations_assistant_usage_cost(),
          value: usage.capCents
            ? m.automations_assistant_usage_of_cap({ cost: formatKes(usage.costCents), cap: formatKes(usage.capCents) })
            : m.automations_assistant_usage_no_cap({ cost: formatKes(usage.costCents) }),
        },
      ]}
    />
  );
}

export interface AssistantFormProps {
  values: Record<string, string | string[]>;
  numbers: { id: string; label: string }[];
  keyLast4: string;
  keySaved: boolean;
  result: Result;
  canManage: boolean;
}

/**
 * The assistant's settings, saved whole with one button: on or off and on which numbers, the
 * instructions, the endpoint (the key is never shown again: an empty field keeps it), the handover
 * and the cost cap. The server checks every field and says what is wrong at the field.
 */
export function AssistantForm({ values, numbers, keyLast4, keySaved, result, canManage }: AssistantFormProps) {
  const [form, fields] = useSchemaForm(lazyAssistantSchema, result, {
    id: "assistant-settings",
    defaultValue: Object.fromEntries(Object.entries(values).filter(([, v]) => typeof v === "string")) as Record<string, string>,
  });
  const chosen = Array.isArray(values.phoneNumberIds) ? values.phoneNumberIds : [];
  const disabled = !canManage;
  return (
    <Form method="post" {...getFormProps(form)} className="grid max-w-3xl gap-4">
      <FormError id={form.errorId} errors={form.errors} />
      <Card>
        <fieldset className="grid gap-4" disabled={disabled}>
          <legend className="card-title">{m.automations_assistant_answering_legend()}</legend>
          <CheckboxField
            label={m.automations_assistant_enabled()}
            hint={m.automations_assistant_enabled_hint()}
            errors={fields.enabled.errors}
            {...getInputProps(fields.enabled, { type: "checkbox" })}
            key={fields.enabled.key}
          />
          <CheckboxGroupField
            id="assistant-numbers"
            legend={m.automations_assistant_numbers()}
            name="phoneNumberIds"
            options={numbers.map((number) => ({ value: number.id, label: number.label }))}
            defaultValues={chosen}
            hint={numbers.length ? m.automations_assistant_numbers_hint() : m.automations_assistant_no_numbers()}
            errors={fields.phoneNumberIds.errors}
          />
          <TextareaField
            label={m.automations_assistant_instructions()}
            rows={4}
            hint={m.automations_assistant_instructions_hint({ max: formatNumber(INSTRUCTIONS_MAX) })}
            errors={fields.instructions.errors}
            {...getTextareaProps(fields.instructions)}
            key={fields.instructions.key}
          />
          <TextareaField
            label={m.automations_assistant_handover_text()}
            rows={2}
            hint={m.automations_assistant_handover_text_hint({ max: formatNumber(HANDOVER_TEXT_MAX) })}
            errors={fields.handoverText.errors}
            {...getTextareaProps(fields.handoverText)}
            key={fields.handoverText.key}
          />
          <Field
            label={m.automations_assistant_max_turns()}
            inputMode="numeric"
            min={MAX_TURNS_MIN}
            max={MAX_TURNS_MAX}
            step={1}
            hint={m.automations_assistant_max_turns_hint()}
            errors={fields.maxTurns.errors}
            {...getInputProps(fields.maxTurns, { type: "number" })}
            key={fields.maxTurns.key}
          />
        </fieldset>
      </Card>
      <Card>
        <fieldset className="grid gap-4" disabled={disabled}>
          <legend className="card-title">{m.automations_assistant_endpoint_legend()}</legend>
          <p className="-mt-2 text-sm text-slate-600">{m.automations_assistant_endpoint_hint()}</p>
          <Field
            label={m.automations_assistant_base_url()}
            autoComplete="off"
            spellCheck={false}
            inputMode="url"
            hint={m.automations_assistant_base_url_hint()}
            errors={fields.baseUrl.errors}
            {...getInputProps(fields.baseUrl, TEXT_INPUT)}
            key={fields.baseUrl.key}
          />
          <Field
            label={m.automations_assistant_model()}
            autoComplete="off"
            spellCheck={false}
            errors={fields.model.errors}
            {...getInputProps(fields.model, TEXT_INPUT)}
            key={fields.model.key}
          />
          <Field
            label={m.automations_assistant_key()}
            autoComplete="off"
            spellCheck={false}
            hint={
              keySaved
                ? `${m.automations_assistant_key_saved({ last4: keyLast4 })} ${m.automations_assistant_key_bound()}`
                : m.automations_assistant_key_none()
            }
            errors={fields.apiKey.errors}
            {...getInputProps(fields.apiKey, { type: "password" })}
            defaultValue=""
            key={fields.apiKey.key}
          />
          {keySaved ? (
            <CheckboxField
              label={m.automations_assistant_key_clear()}
              {...getInputProps(fields.clearKey, { type: "checkbox" })}
              key={fields.clearKey.key}
            />
          ) : null}
        </fieldset>
      </Card>
      <Card>
        <fieldset className="grid gap-4" disabled={disabled}>
          <legend className="card-title">{m.automations_assistant_cost_legend()}</legend>
          <p className="-mt-2 text-sm text-slate-600">{m.automations_assistant_cost_hint()}</p>
          <div className="grid gap-4 sm:grid-cols-3">
            <Field
              label={m.automations_assistant_cap()}
              inputMode="decimal"
              errors={fields.monthlyCap.errors}
              {...getInputProps(fields.monthlyCap, TEXT_INPUT)}
              key={fields.monthlyCap.key}
            />
            <Field
              label={m.automations_assistant_input_price()}
              inputMode="decimal"
              errors={fields.inputPrice.errors}
              {...getInputProps(fields.inputPrice, TEXT_INPUT)}
              key={fields.inputPrice.key}
            />
            <Field
              label={m.automations_assistant_output_price()}
              inputMode="decimal"
              errors={fields.outputPrice.errors}
              {...getInputProps(fields.outputPrice, TEXT_INPUT)}
              key={fields.outputPrice.key}
            />
          </div>
        </fieldset>
      </Card>
      {canManage ? (
        <div>
          <Button type="submit" name="intent" value="save">
            {m.automations_assistant_save()}
          </Button>
        </div>
      ) : null}
    </Form>
  );
}

export type TriedAssistant =
  | { kind: "answer"; text: string; passages: { title: string; text: string }[] }
  | { kind: "handover"; reason: string; detail: string | null; passages: { title: string; text: string }[] }
  | { kind: "greeting"; text: string }
  | { kind: "off" };

/** What "Try it" got: the answer or the handover it would make, and the passages it read. */
function TryOutcome({ tried }: { tried: TriedAssistant }) {
  if (tried.kind === "off") return <Notice>{m.automations_assistant_try_not_saved()}</Notice>;
  if (tried.kind === "greeting")
    return (
      <Notice tone="success" title={m.automations_assistant_try_greeting()}>
        <p className="whitespace-pre-line">{tried.text}</p>
      </Notice>
    );
  return (
    <div className="grid gap-3">
      {tried.kind === "answer" ? (
        <Notice tone="success" title={m.automations_assistant_try_answer()}>
          <p className="whitespace-pre-line">{tried.text}</p>
        </Notice>
      ) : (
        <Notice tone="warning" title={m.automations_assistant_try_handover()}>
          <p>
            {handoverReasonWords(tried.reason)}
            {tried.detail ? ` (${handoverDetailWords(tried.detail)})` : ""}
          </p>
        </Notice>
      )}
      <div>
        <p className="text-sm font-medium text-slate-800">{m.automations_assistant_try_passages()}</p>
        {tried.passages.length ? (
          <ol className="mt-1 list-decimal space-y-1 pl-5 text-sm text-slate-700">
            {tried.passages.map((passage, i) => (
              <li key={i} className="break-words">
                {passage.text}
              </li>
            ))}
          </ol>
        ) : (
          <p className="mt-1 text-sm text-slate-600">{m.automations_assistant_try_no_passages()}</p>
        )}
      </div>
    </div>
  );
}

/** "Try it": a sample question through the saved settings and endpoint. Nothing is sent to a customer. */
export function AssistantTryCard({ result, tried }: { result: Result; tried: TriedAssistant | null }) {
  const [form, fields] = useSchemaForm(lazyTrySchema, result, { id: "try-assistant" });
  return (
    <Card className="max-w-3xl">
      <CardHeader title={m.automations_assistant_try_title()} description={m.automations_assistant_try_description()} />
      <Form method="post" {...getFormProps(form)} className="mt-4 grid gap-3">
        <FormError id={form.errorId} errors={form.errors} />
        <TextareaField
          label={m.automations_assistant_try_sample()}
          rows={2}
          errors={fields.sample.errors}
          {...getTextareaProps(fields.sample)}
          key={fields.sample.key}
        />
        <div>
          <Button type="submit" name="intent" value="try" variant="secondary">
            {m.automations_assistant_try_button()}
          </Button>
        </div>
      </Form>
      {tried ? (
        <div className="mt-4" aria-live="polite">
          <TryOutcome tried={tried} />
        </div>
      ) : null}
    </Card>
  );
}
