import { Form, href, Link, useActionData, useNavigation } from "react-router";
import { Activity, CheckCircle2, Eye, EyeOff, Gauge, KeyRound, RefreshCw, Timer } from "lucide-react";
import type { Route } from "./+types/developers";
import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { useSchemaForm } from "~/components/ui/use-schema-form";
import { Field } from "~/components/ui/field";
import { WEBHOOK_MESSAGES, WebhookSchema } from "~/lib/schemas/developer";
import { requireUserWithPermission } from "~/.server/auth/guards";
import { requestMeta } from "~/.server/http/request-meta";
import { redirectWithToast } from "~/.server/http/toast";
import { apiKeySummary, readApiKey, regenerateApiKey } from "~/.server/developer/api-keys";
import { saveWebhookConfig, webhookConfig } from "~/.server/developer/webhook-endpoint";
import { WEBHOOK_EVENTS } from "~/lib/developer";
import { apiUsageStats } from "~/.server/api-v1/usage";
import { openApiDocument } from "~/.server/api-v1/openapi";
import { endpointDocs } from "~/.server/api-v1/examples";
import { StatCard } from "~/components/ui/stat-card";
import { CopyButton } from "~/components/ui/copy-button";
import { CodeBlock } from "~/components/ui/code-block";
import { Tabs } from "~/components/ui/tabs";
import { formFailure, readForm } from "~/.server/http/forms";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { formatNumber, formatWhen } from "~/lib/dates";
import { Card } from "~/components/ui/card";
import { Button } from "~/components/ui/button";

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
 * regeneration asks for confirmation (?confirm=regenerate) as a page of its own. Both work without
 * JavaScript.
 */
export async function loader(args: Route.LoaderArgs) {
  const { request, context, url } = args;
  const current = await requireUserWithPermission(args, "developer:view");
  const reveal = url.searchParams.get("reveal") === "1";
  const organizationId = current.organization.id;
  const language = exampleLanguage(url);
  const [key, summary, usage, webhook] = await Promise.all([
    reveal ? readApiKey(current, requestMeta(request, context)) : null,
    apiKeySummary(organizationId),
    apiUsageStats(organizationId),
    webhookConfig(organizationId),
  ]);
  return {
    key: key?.key ?? null,
    prefix: key?.prefix ?? summary?.prefix ?? null,
    lastUsedAt: summary?.lastUsedAt ?? null,
    confirmRegenerate: url.searchParams.get("confirm") === "regenerate",
    usage,
    webhook: webhook ?? { url: "", events: [...WEBHOOK_EVENTS], updatedAt: null },
    // One language's examples at a time (tabs below): the page and its data carry a third of them.
    language,
    endpoints: endpointDocs(openApiDocument()).map(({ examples, ...endpoint }) => ({ ...endpoint, example: examples[language] })),
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
  return redirectWithToast("/developers", "error", "Unknown action.");
}

export default function Developers({ loaderData }: Route.ComponentProps) {
  const { key, prefix, confirmRegenerate, usage, webhook, endpoints, language, lastUsedAt } = loaderData;
  const actionData = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
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
        <h1 className="text-2xl font-bold tracking-tight">Developers</h1>
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
          <Form
            method="post"
            className="mt-4 rounded-lg border border-red-200 bg-red-50 p-4"
            role="alertdialog"
            aria-labelledby="regen-title"
          >
            <p id="regen-title" className="font-semibold text-red-900">
              Regenerate the API key?
            </p>
            <p className="mt-1 text-sm text-red-900">
              The current key stops working at once. Every program that uses it must be given the new key.
            </p>
            <input type="hidden" name="intent" value="regenerate" />
            <input type="hidden" name="confirm" value="yes" />
            <div className="mt-3 flex gap-2">
              <Button type="submit" variant="danger" disabled={busy}>
                Yes, regenerate the key
              </Button>
              <Link
                to={href("/developers")}
                className="rounded-lg border border-slate-300 bg-white px-4 py-2 text-sm font-semibold text-slate-800"
              >
                Cancel
              </Link>
            </div>
          </Form>
        ) : null}
      </Card>

      <Card aria-labelledby="webhook-heading">
        <h2 id="webhook-heading" className="text-lg font-semibold">
          Webhook
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          Jumbe sends the events you choose to this URL when messaging is live. It must be a public https address.
        </p>
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
          </article>
        ))}
      </section>
    </div>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
