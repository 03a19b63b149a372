import { Form } from "react-router";

import { getFormProps, getInputProps, type SubmissionResult } from "~/components/ui/form-state";

import { Badge } from "~/components/ui/badge";

import { Button } from "~/components/ui/button";

import { Card } from "~/components/ui/card";

import { Field } from "~/components/ui/field";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";

import { WEBHOOK_EVENTS } from "~/lib/developer";

import { formatWhen } from "~/lib/dates";

import { SigningSecret } from "./signing-secret";

import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyWebhookSchema = lazySchema(() => import("~/lib/schemas/developer"), "WebhookSchema");

// Not words: the specification's name, an example address, and the URL field's input type.
const STANDARD_WEBHOOKS = "Standard Webhooks";
const EXAMPLE_URL = "https://example.co.ke/jumbe/webhooks";
const URL_INPUT = { type: "url" } as const;

export interface WebhookSettings {
  url: string;
  events: readonly string[];
  updatedAt: string | null;
}

export interface WebhookState {
  secretCreatedAt: string | null;
  failingSince: string | null;
  disabledAt: string | null;
}

interface WebhookCardProps {
  webhook: WebhookSettings;
  state: WebhookState;
  /** The last webhook save's reply, when it was refused. */
  result: SubmissionResult<string[]> | null | undefined;
  secret: string | null;
  confirmRotateSecret: boolean;
}

/** Where Jumbe sends events: the URL and events, the endpoint's health, and its signing secret. */
export function WebhookCard({ webhook, state, result, secret, confirmRotateSecret }: WebhookCardProps) {
  return (
    <Card aria-labelledby="webhook-heading">
      <h2 id="webhook-heading" className="text-lg font-semibold">
        {m.developers_webhook_heading()}
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        {m.developers_webhook_intro_before()}
        <a href="https://www.standardwebhooks.com/" className="font-medium text-brand-700 underline">
          {STANDARD_WEBHOOKS}
        </a>
        {m.developers_webhook_intro_after()}
      </p>
      <EndpointHealth state={state} />
      <WebhookForm webhook={webhook} result={result} />
      {webhook.updatedAt ? <SigningSecret secret={secret} createdAt={state.secretCreatedAt} confirmRotate={confirmRotateSecret} /> : null}
    </Card>
  );
}

/** A disabled endpoint (with its re-enable button), or a warning while deliveries fail. */
function EndpointHealth({ state }: { state: WebhookState }) {
  if (state.disabledAt)
    return (
      <div role="alert" className="mt-4 rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-900" data-testid="webhook-disabled">
        <p className="font-semibold">
          <Badge tone="danger">{m.developers_webhook_disabled()}</Badge>{" "}
          {m.developers_webhook_disabled_since({ when: formatWhen(state.disabledAt) })}
        </p>
        <p className="mt-1">{m.developers_webhook_disabled_help()}</p>
        <Form method="post" className="mt-3">
          <input type="hidden" name="intent" value="webhook-enable" />
          <Button type="submit">{m.developers_webhook_enable()}</Button>
        </Form>
      </div>
    );
  if (state.failingSince)
    return (
      <p role="status" className="mt-4 rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
        {m.developers_webhook_failing({ when: formatWhen(state.failingSince) })}
      </p>
    );
  return null;
}

/** The webhook's URL and events, checked in the browser with the server's own schema. */
function WebhookForm({ webhook, result }: { webhook: WebhookSettings; result: WebhookCardProps["result"] }) {
  const [form, fields] = useSchemaForm(lazyWebhookSchema, result, {
    id: "webhook",
    defaultValue: { url: webhook.url },
    shouldValidate: "onBlur",
  });
  // After a refused save the boxes keep what was sent; otherwise they show what is stored.
  const sentEvents = result?.initialValue?.events;
  const checkedEvents: readonly string[] = result
    ? [sentEvents ?? []].flat().filter((e): e is string => typeof e === "string")
    : webhook.events;
  return (
    <Form method="post" {...getFormProps(form)} className="mt-4 space-y-4">
      <input type="hidden" name="intent" value="webhook" />
      <Field
        label={m.developers_webhook_url()}
        markRequired
        placeholder={EXAMPLE_URL}
        errors={fields.url.errors}
        {...getInputProps(fields.url, URL_INPUT)}
        key={fields.url.key}
      />
      <fieldset
        aria-describedby={fields.events.errors?.length ? fields.events.errorId : undefined}
        aria-invalid={fields.events.errors?.length ? true : undefined}
      >
        <legend className="text-sm font-medium text-slate-700">{m.developers_webhook_events()}</legend>
        <div className="mt-2 grid gap-2 sm:grid-cols-2">
          {WEBHOOK_EVENTS.map((event) => (
            <label key={`${event}-${fields.events.key ?? ""}`} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                name={fields.events.name}
                value={event}
                defaultChecked={checkedEvents.includes(event)}
                className="size-4"
              />
              <code>{event}</code>
            </label>
          ))}
        </div>
        <p id={fields.events.errorId} className="min-h-5 pt-0.5 text-sm text-red-600">
          {fields.events.errors?.[0] ?? ""}
        </p>
      </fieldset>
      <Button type="submit">{m.developers_webhook_save()}</Button>
    </Form>
  );
}
