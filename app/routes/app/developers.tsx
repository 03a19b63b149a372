import { data, Form, href, Link, useActionData, useNavigation } from "react-router";
import { Activity, CheckCircle2, Eye, EyeOff, Gauge, KeyRound, RefreshCw, Send, Timer } from "~/components/ui/icons";
import type { Route } from "./+types/developers";
import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { useSchemaForm } from "~/components/ui/use-schema-form";
import { Field } from "~/components/ui/field";
import { WEBHOOK_MESSAGES, WebhookSchema } from "~/lib/schemas/developer";
import { requireUserWithPermission } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { apiKeySummary, readApiKey, regenerateApiKey } from "~/.server/domains/developer/api-keys";
import { saveWebhookConfig, webhookConfig } from "~/.server/domains/webhooks-out/endpoint";
import { readWebhookSecret, rotateWebhookSecret } from "~/.server/domains/webhooks-out/secret";
import { enableEndpoint, recentDeliveries, redeliver, sendTestEvent, type DeliveryRow } from "~/.server/domains/webhooks-out/manage";
import { WEBHOOK_EVENTS } from "~/lib/developer";
import { apiUsageStats } from "~/.server/adapters/api-v1/usage";
import { documentedErrorCodes, openApiDocument } from "~/.server/adapters/api-v1/openapi";
import { endpointDocs } from "~/.server/adapters/api-v1/examples";
import { StatCard } from "~/components/ui/stat-card";
import { CopyButton } from "~/components/ui/copy-button";
import { CodeBlock } from "~/components/ui/code-block";
import { Tabs } from "~/components/ui/tabs";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { formFailure, readForm } from "~/.server/infrastructure/http/forms";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { formatNumber, formatWhen } from "~/lib/dates";
import { Card } from "~/components/ui/card";
import { Button, ButtonLink } from "~/components/ui/button";
import { PageTitle } from "~/components/ui/page-title";
import { Badge } from "~/components/ui/badge";
import { Table, type Column } from "~/components/ui/table";
import type { PermissionHandle } from "~/lib/permissions";

export const handle: PermissionHandle = { permission: "developer:view" };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const LANGUAGE_LABELS = { curl: "curl", javascript: "JavaScript", python: "Python" } as const;
type Language = keyof typeof LANGUAGE_LABELS;
const LANGUAGES = Object.keys(LANGUAGE_LABELS) as Language[];

/** The examples' language from `?lang=`; curl unless another known one is asked for. */
function exampleLanguage(url: URL): Language {
  const asked = url.searchParams.get("lang");
  return LANGUAGES.find((language) => language === asked) ?? "curl";
}

export const meta: Route.MetaFunction = () => [{ title: "Developers | Jumbe" }];

/**
 * The key is shown only when asked for (?reveal=1), so every read of it is a logged request; the
 * regeneration asks for confirmation (?confirm=regenerate) as a page of its own. The webhook's
 * signing secret works the same way (?secret=1, ?confirm=rotate-secret). All without JavaScript.
 */
export async function loader(args: Route.LoaderArgs) {
  const { request, context, url } = args;
  const current = await requireUserWithPermission(args, "developer:view");
  const reveal = url.searchParams.get("reveal") === "1";
  const organizationId = current.organization.id;
  const language = exampleLanguage(url);
  const [key, summary, usage, webhook, deliveries, secret] = await Promise.all([
    reveal ? readApiKey(current, requestMeta(request, context)) : null,
    apiKeySummary(organizationId),
    apiUsageStats(organizationId),
    webhookConfig(organizationId),
    recentDeliveries(organizationId),
    url.searchParams.get("secret") === "1" ? readWebhookSecret(current, requestMeta(request, context)) : null,
  ]);
  return {
    key: key?.key ?? null,
    prefix: key?.prefix ?? summary?.prefix ?? null,
    lastUsedAt: summary?.lastUsedAt ?? null,
    confirmRegenerate: url.searchParams.get("confirm") === "regenerate",
    usage,
    webhook: webhook
      ? { url: webhook.url, events: webhook.events, updatedAt: webhook.updatedAt }
      : { url: "", events: [...WEBHOOK_EVENTS], updatedAt: null },
    // Webhooks out: when the secret was made, and whether deliveries are failing or stopped.
    webhookState: {
      secretCreatedAt: webhook?.secretCreatedAt ?? null,
      failingSince: webhook?.failingSince ?? null,
      disabledAt: webhook?.disabledAt ?? null,
    },
    secret,
    confirmRotateSecret: url.searchParams.get("confirm") === "rotate-secret",
    deliveries,
    // One language's examples at a time (tabs below): the page and its data carry a third of them.
    language,
    endpoints: endpointDocs(openApiDocument()).map(({ examples, ...endpoint }) => ({
      ...endpoint,
      example: examples[language],
      errorCodes: documentedErrorCodes(openApiDocument(), endpoint.path, endpoint.method),
    })),
    // The one catalogue of error codes, as the OpenAPI document publishes it.
    errorCatalogue: openApiDocument()["x-error-catalogue"],
  };
}

export async function action(args: Route.ActionArgs) {
  const { request, context } = args;
  const current = await requireUserWithPermission(args, "developer:manage");
  const form = await readForm(request);
  const meta = requestMeta(request, context);
  if (form.get("intent") === "regenerate") {
    if (form.get("confirm") !== "yes")
      return redirectWithToast("/developers?confirm=regenerate", "error", "Confirm that the current key should stop working.");
    await regenerateApiKey(current, meta);
    return redirectWithToast("/developers?reveal=1", "success", "New API key created. The old key no longer works.");
  }
  if (form.get("intent") === "webhook") {
    const submission = parseWithZod(form, { schema: WebhookSchema });
    if (submission.status !== "success") return formFailure(submission.reply(), 400);
    const saved = await saveWebhookConfig(current, submission.value, meta);
    if (!saved.ok) {
      const field = saved.message === WEBHOOK_MESSAGES.eventsRequired || saved.message === WEBHOOK_MESSAGES.eventUnknown ? "events" : "url";
      return formFailure(submission.reply({ fieldErrors: { [field]: [saved.message] } }), 400);
    }
    return redirectWithToast("/developers", "success", "Webhook configuration saved.");
  }
  if (form.get("intent") === "webhook-secret-rotate") {
    if (form.get("confirm") !== "yes")
      return redirectWithToast(
        "/developers?confirm=rotate-secret#signing-secret",
        "error",
        "Confirm that the signing secret should change.",
      );
    if (!(await rotateWebhookSecret(current, meta))) throw data("Save a webhook URL first: it has no signing secret yet.", { status: 400 });
    return redirectWithToast(
      "/developers?secret=1#signing-secret",
      "success",
      "New signing secret created. The previous one also signs for 24 hours.",
    );
  }
  if (form.get("intent") === "webhook-test") {
    if (!(await sendTestEvent(current, meta))) throw data("Save a webhook URL first, and re-enable it if it is disabled.", { status: 400 });
    return redirectWithToast(
      "/developers#deliveries-heading",
      "success",
      "Test event queued. Its delivery is listed under Recent deliveries.",
    );
  }
  if (form.get("intent") === "webhook-redeliver") {
    const id = form.get("delivery");
    if (typeof id !== "string" || !UUID.test(id)) throw data("Choose a delivery to send again.", { status: 400 });
    const outcome = await redeliver(current, id, meta);
    if (outcome === "not_found") throw data("Delivery not found.", { status: 404 });
    if (outcome === "disabled") throw data("Re-enable the webhook endpoint before redelivering.", { status: 409 });
    return redirectWithToast("/developers#deliveries-heading", "success", "Event queued to be sent again.");
  }
  if (form.get("intent") === "webhook-enable") {
    const outcome = await enableEndpoint(current, meta);
    if (outcome === "missing") throw data("There is no webhook endpoint to enable.", { status: 400 });
    return redirectWithToast(
      "/developers",
      "success",
      outcome === "reenabled" ? "Webhook endpoint re-enabled." : "The webhook endpoint is already enabled.",
    );
  }
  return redirectWithToast("/developers", "error", "Unknown action.");
}

export default function Developers({ loaderData }: Route.ComponentProps) {
  const {
    key,
    prefix,
    confirmRegenerate,
    usage,
    webhook,
    webhookState,
    endpoints,
    errorCatalogue,
    language,
    lastUsedAt,
    secret,
    confirmRotateSecret,
    deliveries,
  } = loaderData;
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const submitting = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const [webhookForm, webhookFields] = useSchemaForm(WebhookSchema, actionData?.result, {
    id: "webhook",
    defaultValue: { url: webhook.url },
    shouldValidate: "onBlur",
  });
  // After a refused save the boxes keep what was sent; otherwise they show what is stored.
  const sentEvents = actionData?.result?.initialValue?.events;
  const checkedEvents: readonly string[] = actionData?.result
    ? [sentEvents ?? []].flat().filter((e): e is string => typeof e === "string")
    : webhook.events;
  return (
    <div className="space-y-6">
      <div>
        <PageTitle>Developers</PageTitle>
        <p className="text-slate-600">
          Your API key, webhooks and the Jumbe API. The full description is at{" "}
          <a href="/api/v1/openapi.json" className="font-medium text-brand-700 underline">
            /api/v1/openapi.json
          </a>{" "}
          (OpenAPI 3.1).
        </p>
      </div>

      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard label="API Calls" value={formatNumber(usage.calls)} icon={Activity} hint="Last 30 days" />
        <StatCard
          label="Success Rate"
          value={usage.successRate === null ? "—" : `${usage.successRate}%`}
          icon={CheckCircle2}
          hint="Last 30 days"
        />
        <StatCard
          label="Avg Response"
          value={usage.averageMs === null ? "—" : `${usage.averageMs}ms`}
          icon={Timer}
          hint="Measured at the server"
        />
        <StatCard label="Rate Limit" value={`${formatNumber(usage.rateLimitPerMinute)}/min`} icon={Gauge} hint="Per API key" />
      </div>

      <Card aria-labelledby="key-heading">
        <h2 id="key-heading" className="flex items-center gap-2 text-lg font-semibold">
          <KeyRound className="size-5 text-brand-600" aria-hidden /> Live API key
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          Send it as <code className="rounded bg-slate-100 px-1">Authorization: Bearer &lt;key&gt;</code>. Keep it secret: anyone with it
          can use the API as your organisation.
        </p>
        <div className="mt-4 flex flex-col gap-3 sm:flex-row sm:items-center">
          {key ? (
            <input
              readOnly
              value={key}
              aria-label="API key"
              data-testid="api-key"
              className="w-full rounded-lg border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm sm:flex-1"
            />
          ) : (
            <code
              data-testid="api-key-masked"
              className="w-full rounded-lg border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm sm:flex-1"
            >
              {prefix ? `${prefix}${"•".repeat(24)}` : "No key yet: Show creates one"}
            </code>
          )}
          <div className="flex gap-2">
            {key ? (
              <>
                <Link
                  to={href("/developers")}
                  className="inline-flex items-center gap-2 rounded-lg border border-slate-300 px-3 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-50"
                >
                  <EyeOff className="size-4" aria-hidden /> Hide
                </Link>
                <CopyButton text={key} label="Copy" />
              </>
            ) : (
              <Link
                to="/developers?reveal=1"
                className="inline-flex items-center gap-2 rounded-lg border border-slate-300 px-3 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-50"
              >
                <Eye className="size-4" aria-hidden /> Show
              </Link>
            )}
            {/* Nothing to regenerate until a key exists (Show creates the first one). */}
            {prefix ? (
              <Link
                to="/developers?confirm=regenerate"
                className="inline-flex items-center gap-2 rounded-lg border border-red-200 px-3 py-2 text-sm font-semibold text-red-700 hover:bg-red-50"
              >
                <RefreshCw className="size-4" aria-hidden /> Regenerate
              </Link>
            ) : null}
          </div>
        </div>
        {lastUsedAt ? <p className="mt-2 text-xs text-slate-500">Last used {formatWhen(lastUsedAt)}</p> : null}
        {confirmRegenerate && prefix ? (
          <ConfirmPanel
            title="Regenerate the API key?"
            intent="regenerate"
            confirmLabel="Yes, regenerate the key"
            cancelTo={href("/developers")}
            busy={busy}
          >
            The current key stops working at once. Every program that uses it must be given the new key.
          </ConfirmPanel>
        ) : null}
      </Card>

      <Card aria-labelledby="webhook-heading">
        <h2 id="webhook-heading" className="text-lg font-semibold">
          Webhook
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          Jumbe sends the events you choose to this URL, signed as the{" "}
          <a href="https://www.standardwebhooks.com/" className="font-medium text-brand-700 underline">
            Standard Webhooks
          </a>{" "}
          specification says. It must be a public https address.
        </p>
        {webhookState.disabledAt ? (
          <div
            role="alert"
            className="mt-4 rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-900"
            data-testid="webhook-disabled"
          >
            <p className="font-semibold">
              <Badge tone="danger">Disabled</Badge> Jumbe stopped sending to this endpoint on {formatWhen(webhookState.disabledAt)}.
            </p>
            <p className="mt-1">
              No delivery succeeded for three days. Once the endpoint answers again, re-enable it; failed events can be redelivered below.
            </p>
            <Form method="post" className="mt-3">
              <input type="hidden" name="intent" value="webhook-enable" />
              <Button type="submit" pending={submitting("webhook-enable")} disabled={busy}>
                Re-enable the endpoint
              </Button>
            </Form>
          </div>
        ) : webhookState.failingSince ? (
          <p role="status" className="mt-4 rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
            Deliveries have been failing since {formatWhen(webhookState.failingSince)}. After three days without a success the endpoint is
            disabled.
          </p>
        ) : null}
        <Form method="post" {...getFormProps(webhookForm)} className="mt-4 space-y-4">
          <input type="hidden" name="intent" value="webhook" />
          <Field
            label="Webhook URL"
            markRequired
            placeholder="https://example.co.ke/jumbe/webhooks"
            errors={webhookFields.url.errors}
            {...getInputProps(webhookFields.url, { type: "url" })}
            key={webhookFields.url.key}
          />
          <fieldset
            aria-describedby={webhookFields.events.errors?.length ? webhookFields.events.errorId : undefined}
            aria-invalid={webhookFields.events.errors?.length ? true : undefined}
          >
            <legend className="text-sm font-medium text-slate-700">Events</legend>
            <div className="mt-2 grid gap-2 sm:grid-cols-2">
              {WEBHOOK_EVENTS.map((event) => (
                <label key={`${event}-${webhookFields.events.key ?? ""}`} className="flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    name={webhookFields.events.name}
                    value={event}
                    defaultChecked={checkedEvents.includes(event)}
                    className="size-4"
                  />
                  <code>{event}</code>
                </label>
              ))}
            </div>
            <p id={webhookFields.events.errorId} className="min-h-5 pt-0.5 text-sm text-red-600">
              {webhookFields.events.errors?.[0] ?? ""}
            </p>
          </fieldset>
          <Button type="submit" disabled={busy}>
            Save Webhook Configuration
          </Button>
        </Form>
        {webhook.updatedAt ? (
          <SigningSecret secret={secret} createdAt={webhookState.secretCreatedAt} confirmRotate={confirmRotateSecret} busy={busy} />
        ) : null}
      </Card>

      <Card aria-labelledby="deliveries-heading">
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div className="min-w-0">
            <h2 id="deliveries-heading" className="text-lg font-semibold">
              Recent deliveries
            </h2>
            <p className="mt-1 text-sm text-slate-600">
              The last 20 events sent to your webhook, newest first. A failed delivery is retried for three days.
            </p>
          </div>
          {webhook.updatedAt ? (
            <div className="flex flex-wrap gap-2">
              {/* A GET form: it loads the page again even when the URL is the same one. */}
              <Form method="get" action="/developers">
                <Button type="submit" size="sm" variant="secondary" disabled={busy}>
                  <RefreshCw className="size-4" aria-hidden /> Refresh
                </Button>
              </Form>
              {webhookState.disabledAt ? null : (
                <Form method="post">
                  <input type="hidden" name="intent" value="webhook-test" />
                  <Button type="submit" size="sm" variant="secondary" pending={submitting("webhook-test")} disabled={busy}>
                    <Send className="size-4" aria-hidden /> Send test event
                  </Button>
                </Form>
              )}
            </div>
          ) : null}
        </div>
        <div className="mt-4">
          <Table
            caption="Recent webhook deliveries"
            columns={deliveryColumns(busy, !webhookState.disabledAt)}
            rows={deliveries}
            rowKey={(row) => row.id}
            empty={
              webhook.updatedAt ? "No deliveries yet. Send a test event to see one here." : "Save a webhook URL to start receiving events."
            }
          />
        </div>
      </Card>

      <section className="space-y-4" aria-labelledby="endpoints-heading">
        <h2 id="endpoints-heading" className="text-lg font-semibold">
          Endpoints
        </h2>
        <Tabs
          label="Examples in"
          items={LANGUAGES.map((l) => ({ label: LANGUAGE_LABELS[l], to: `?lang=${l}#endpoints-heading`, current: l === language }))}
        />
        {endpoints.map((endpoint) => (
          <article
            key={`${endpoint.method} ${endpoint.path}`}
            className="min-w-0 rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
            data-testid="endpoint"
          >
            <p className="font-mono text-sm break-all">
              <span className="mr-2 rounded bg-brand-100 px-2 py-0.5 font-semibold text-brand-900">{endpoint.method}</span>
              {endpoint.path}
            </p>
            <p className="mt-2 text-sm text-slate-600">{endpoint.description}</p>
            <div className="mt-3">
              <CodeBlock code={endpoint.example} label={LANGUAGE_LABELS[language]} testId={`example-${language}`} />
            </div>
            <p className="mt-3 text-sm text-slate-600" data-testid="endpoint-errors">
              <span className="font-medium text-slate-900">Errors it can answer: </span>
              {endpoint.errorCodes.map((code, i) => (
                <span key={code}>
                  {i ? ", " : ""}
                  <a href={`#error-${code}`} className="font-mono text-brand-700 underline-offset-2 hover:underline">
                    {code}
                  </a>
                </span>
              ))}
            </p>
          </article>
        ))}
      </section>

      <section className="space-y-4" aria-labelledby="errors-heading">
        <h2 id="errors-heading" className="text-lg font-semibold">
          Errors
        </h2>
        <p className="text-sm text-slate-600">
          Every error answers <code className="font-mono">{"{ code, message }"}</code> with one of these codes, always with the same HTTP
          status. The message says what went wrong in words; a refusal for a missing permission also names it in{" "}
          <code className="font-mono">permission</code>.
        </p>
        <Card as="div" padding="none">
          <Table
            caption="Error codes of the API"
            columns={ERROR_COLUMNS}
            rows={errorCatalogue}
            rowKey={(row) => row.code}
            empty="No error codes."
          />
        </Card>
      </section>
    </div>
  );
}

type ErrorRow = { code: string; status: number; meaning: string; action: string };

const ERROR_COLUMNS: Column<ErrorRow>[] = [
  {
    key: "code",
    header: "Code",
    cell: (row) => (
      <span id={`error-${row.code}`} className="font-mono text-sm">
        {row.code}
      </span>
    ),
  },
  { key: "status", header: "HTTP status", cell: (row) => row.status },
  { key: "meaning", header: "What it means", cell: (row) => row.meaning },
  { key: "action", header: "What to do", cell: (row) => row.action },
];

/** The signing secret: masked until asked for (each read logged), rotated after a confirmation. */
function SigningSecret({
  secret,
  createdAt,
  confirmRotate,
  busy,
}: {
  secret: string | null;
  createdAt: string | null;
  confirmRotate: boolean;
  busy: boolean;
}) {
  return (
    <div className="mt-6 border-t border-slate-100 pt-4">
      <h3 id="signing-secret" className="font-semibold text-slate-900">
        Signing secret
      </h3>
      <p className="mt-1 text-sm text-slate-600">
        Check each request&apos;s <code className="rounded bg-slate-100 px-1">webhook-signature</code> header with it. Keep it secret.
      </p>
      <div className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-center">
        {secret ? (
          <input
            readOnly
            value={secret}
            aria-label="Signing secret"
            data-testid="webhook-secret"
            className="w-full rounded-lg border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm sm:flex-1"
          />
        ) : (
          <code className="w-full rounded-lg border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm sm:flex-1">
            whsec_{"•".repeat(24)}
          </code>
        )}
        <div className="flex gap-2">
          {secret ? (
            <>
              <ButtonLink to="/developers#signing-secret" variant="secondary">
                <EyeOff className="size-4" aria-hidden /> Hide secret
              </ButtonLink>
              <CopyButton text={secret} label="Copy secret" />
            </>
          ) : (
            <ButtonLink to="/developers?secret=1#signing-secret" variant="secondary">
              <Eye className="size-4" aria-hidden /> Show secret
            </ButtonLink>
          )}
          <Link
            to="/developers?confirm=rotate-secret#signing-secret"
            className="inline-flex items-center gap-2 rounded-lg border border-red-200 px-3 py-2 text-sm font-semibold text-red-700 hover:bg-red-50"
          >
            <RefreshCw className="size-4" aria-hidden /> Rotate
          </Link>
        </div>
      </div>
      {createdAt ? <p className="mt-2 text-xs text-slate-500">Created {formatWhen(createdAt)}</p> : null}
      {confirmRotate ? (
        <ConfirmPanel
          title="Rotate the signing secret?"
          intent="webhook-secret-rotate"
          confirmLabel="Yes, rotate the secret"
          cancelTo="/developers#signing-secret"
          busy={busy}
        >
          A new secret signs every delivery from now on. The current one also signs for 24 hours, so there is time to give your receiver the
          new one.
        </ConfirmPanel>
      ) : null}
    </div>
  );
}

const DELIVERY_BADGES = {
  delivered: { tone: "success", label: "Delivered" },
  pending: { tone: "warning", label: "Retrying" },
  failed: { tone: "danger", label: "Failed" },
} as const;

/** A delivery's last answer in words: the HTTP status, or why there was none. */
function deliveryResult(row: DeliveryRow) {
  if (row.status === "delivered") return `HTTP ${row.responseStatus}`;
  if (!row.attempts && !row.error) return "Waiting to be sent";
  if (row.responseStatus !== null && row.error && !row.error.startsWith("HTTP")) return `HTTP ${row.responseStatus}: ${row.error}`;
  return row.error ?? `HTTP ${row.responseStatus}`;
}

function deliveryColumns(busy: boolean, sendable: boolean): Column<DeliveryRow>[] {
  return [
    { key: "event", header: "Event", cell: (row) => <code className="text-xs">{row.eventType}</code> },
    { key: "time", header: "Time", cell: (row) => formatWhen(row.createdAt), hideOnPhone: true },
    {
      key: "result",
      header: "Result",
      cell: (row) => {
        const badge =
          row.status === "pending" && !row.attempts ? { tone: "warning" as const, label: "Queued" } : DELIVERY_BADGES[row.status];
        return (
          <div className="min-w-0" data-testid="delivery-result">
            <Badge tone={badge.tone}>{badge.label}</Badge> <span className="text-slate-700">{deliveryResult(row)}</span>
            {row.responseBody ? (
              <details className="mt-1">
                <summary className="cursor-pointer text-xs text-slate-500">Answer</summary>
                <pre className="mt-1 max-w-md overflow-x-auto rounded bg-slate-50 p-2 text-xs whitespace-pre-wrap">{row.responseBody}</pre>
              </details>
            ) : null}
          </div>
        );
      },
    },
    { key: "attempts", header: "Attempts", cell: (row) => <span data-testid="delivery-attempts">{row.attempts}</span>, align: "right" },
    {
      key: "next",
      header: "Next retry",
      cell: (row) => (row.nextAttemptAt && row.attempts ? formatWhen(row.nextAttemptAt) : "—"),
      hideOnPhone: true,
    },
    {
      key: "actions",
      header: <span className="sr-only">Actions</span>,
      cell: (row) =>
        sendable ? (
          <Form method="post">
            <input type="hidden" name="intent" value="webhook-redeliver" />
            <input type="hidden" name="delivery" value={row.id} />
            <Button
              type="submit"
              size="sm"
              variant="secondary"
              disabled={busy}
              aria-label={`Redeliver ${row.eventType} of ${formatWhen(row.createdAt)}`}
            >
              Redeliver
            </Button>
          </Form>
        ) : null,
      align: "right",
    },
  ];
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
