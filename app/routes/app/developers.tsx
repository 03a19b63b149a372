import { data, useActionData } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/developers";
import { WebhookSchema } from "~/lib/schemas/developer";
import { WEBHOOK_MESSAGES } from "~/lib/schemas/developer-rules";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { apiKeySummary, readApiKey, regenerateApiKey } from "~/.server/domains/developer/api-keys";
import { saveWebhookConfig, webhookConfig } from "~/.server/domains/webhooks-out/endpoint";
import { readWebhookSecret, rotateWebhookSecret } from "~/.server/domains/webhooks-out/secret";
import { enableEndpoint, recentDeliveries, redeliver, sendTestEvent } from "~/.server/domains/webhooks-out/manage";
import { WEBHOOK_EVENTS } from "~/lib/developer";
import { apiUsageStats } from "~/.server/adapters/api-v1/usage";
import { endpointIndex, quickStartExample } from "~/.server/adapters/api-v1/reference";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { PageTitle } from "~/components/ui/page-title";
import { ApiUsageCards } from "~/components/developers/api-usage";
import { ApiKeyCard } from "~/components/developers/api-key-card";
import { WebhookCard } from "~/components/developers/webhook-card";
import { DeliveriesCard } from "~/components/developers/deliveries-card";
import { EndpointList, QuickStart } from "~/components/developers/api-reference";
import { exampleLanguage } from "~/components/developers/languages";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { endpointSummary } from "~/.server/domains/developer/reference-words";
import { m } from "~/paraglide/messages";

// Sent as a document without React (decision 066): its forms post as documents, every step of the
// key and the secret is a page of its own, and the copy buttons are app/assets/forms.js's.
export const handle: PermissionHandle & PageHandle = { permission: "developer:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// The delivery a Redeliver button names.
const RedeliverSchema = z.object({ delivery: z.string().check(z.regex(UUID)) });

// A path, not words.
const OPENAPI_PATH = "/api/v1/openapi.json";

export const meta: Route.MetaFunction = () => [{ title: `${m.developers_title()} | Jumbe` }];

/**
 * The key is shown only when asked for (?reveal=1), so every read of it is a logged request; the
 * regeneration asks for confirmation (?confirm=regenerate) as a page of its own. The webhook's
 * signing secret works the same way (?secret=1, ?confirm=rotate-secret). All without JavaScript.
 */
export async function loader(args: Route.LoaderArgs) {
  const { request, context, url } = args;
  const current = await requireDeclaredUser(args);
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
    // One example here, in one language at a time (tabs); each endpoint's are on its own page.
    language,
    example: quickStartExample(language),
    endpoints: endpointIndex().map((endpoint) => ({ ...endpoint, summary: endpointSummary(endpoint.operationId, endpoint.summary) })),
  };
}

// The confirmation a key's or a secret's replacement asks for first; the buttons that post nothing else.
const Confirmed = z.object({ confirm: postedText });
const NoFields = z.object({});

/** The key, the webhook and its deliveries: owners and admins (developer:manage), each step a form of its own. */
export async function action(args: Route.ActionArgs) {
  const meta = requestMeta(args.request, args.context);
  return intentAction(args, {
    permission: "developer:manage",
    intents: {
      regenerate: intent(Confirmed, async ({ value, user }) => {
        if (value.confirm !== "yes") return redirectWithToast("/developers?confirm=regenerate", "error", m.developers_key_confirm_first());
        await regenerateApiKey(user, meta);
        return redirectWithToast("/developers?reveal=1", "success", m.developers_key_regenerated());
      }),
      webhook: intent(
        WebhookSchema,
        async ({ value, submission, user }) => {
          const saved = await saveWebhookConfig(user, value, meta);
          if (!saved.ok) {
            const field =
              saved.message === WEBHOOK_MESSAGES.eventsRequired || saved.message === WEBHOOK_MESSAGES.eventUnknown ? "events" : "url";
            return formFailure(submission.reply({ fieldErrors: { [field]: [saved.message] } }), 400);
          }
          return redirectWithToast("/developers", "success", m.developers_webhook_saved());
        },
        { invalid: (submission) => formFailure(submission.reply(), 400) },
      ),
      "webhook-secret-rotate": intent(Confirmed, async ({ value, user }) => {
        if (value.confirm !== "yes")
          return redirectWithToast("/developers?confirm=rotate-secret#signing-secret", "error", m.developers_secret_confirm_first());
        if (!(await rotateWebhookSecret(user, meta))) throw data(m.developers_secret_no_webhook(), { status: 400 });
        return redirectWithToast("/developers?secret=1#signing-secret", "success", m.developers_secret_rotated());
      }),
      "webhook-test": intent(NoFields, async ({ user }) => {
        if (!(await sendTestEvent(user, meta))) throw data(m.developers_test_no_webhook(), { status: 400 });
        return redirectWithToast("/developers#deliveries-heading", "success", m.developers_test_queued());
      }),
      "webhook-redeliver": intent(
        RedeliverSchema,
        async ({ value, user }) => {
          const outcome = await redeliver(user, value.delivery, meta);
          if (outcome === "not_found") throw data(m.developers_redeliver_not_found(), { status: 404 });
          if (outcome === "disabled") throw data(m.developers_redeliver_disabled(), { status: 409 });
          return redirectWithToast("/developers#deliveries-heading", "success", m.developers_redeliver_queued());
        },
        {
          invalid: () => {
            throw data(m.developers_redeliver_choose(), { status: 400 });
          },
        },
      ),
      "webhook-enable": intent(NoFields, async ({ user }) => {
        const outcome = await enableEndpoint(user, meta);
        if (outcome === "missing") throw data(m.developers_enable_missing(), { status: 400 });
        return redirectWithToast(
          "/developers",
          "success",
          outcome === "reenabled" ? m.developers_enable_done() : m.developers_enable_already(),
        );
      }),
    },
    unknown: () => redirectWithToast("/developers", "error", m.developers_unknown_action()),
  });
}

export default function Developers({ loaderData }: Route.ComponentProps) {
  const { webhook, webhookState } = loaderData;
  const actionData = useActionData<typeof action>();
  return (
    <div className="space-y-6">
      <div>
        <PageTitle>{m.developers_title()}</PageTitle>
        <p className="text-slate-600">
          {m.developers_intro_before()}{" "}
          <a href={OPENAPI_PATH} className="font-medium text-brand-700 underline">
            {OPENAPI_PATH}
          </a>{" "}
          {m.developers_intro_after()}
        </p>
      </div>
      <ApiUsageCards usage={loaderData.usage} />
      <ApiKeyCard
        apiKey={loaderData.key}
        prefix={loaderData.prefix}
        lastUsedAt={loaderData.lastUsedAt}
        confirmRegenerate={loaderData.confirmRegenerate}
      />
      <WebhookCard
        webhook={webhook}
        state={webhookState}
        result={actionData?.result}
        secret={loaderData.secret}
        confirmRotateSecret={loaderData.confirmRotateSecret}
      />
      <DeliveriesCard
        deliveries={loaderData.deliveries}
        configured={Boolean(webhook.updatedAt)}
        disabled={Boolean(webhookState.disabledAt)}
      />
      <QuickStart example={loaderData.example} language={loaderData.language} />
      <EndpointList endpoints={loaderData.endpoints} language={loaderData.language} />
    </div>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
