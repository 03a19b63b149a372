import { data, Form, Link, useNavigation, useSearchParams } from "react-router";
import { z } from "zod";
import { parseWithZod } from "@conform-to/zod/v4";
import type { Route } from "./+types/whatsapp-account";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { readForm } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { checkStepUp, stepUpNeeded } from "~/.server/domains/admin/step-up";
import { adminAccount } from "~/.server/domains/admin/whatsapp/accounts";
import { graphCallsOf, webhooksOf } from "~/.server/domains/admin/whatsapp/logs";
import {
  disconnectAsAdmin,
  findAccount,
  requestReconnection,
  resubscribeAccount,
  testConnection,
  type ConnectionTest,
} from "~/.server/domains/admin/whatsapp/actions";
import { AdminActionForm } from "~/components/admin/action-form";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { FormError, TextareaField } from "~/components/ui/field";
import { Notice } from "~/components/ui/notice";
import { StepUpField } from "~/components/ui/step-up-field";
import { SummaryList } from "~/components/ui/summary";
import { Table, pageHref, type Column } from "~/components/ui/table";
import { formatNumber, formatWhen } from "~/lib/dates";
import { Name } from "~/components/ui/name";
import { withoutBidiControls } from "~/lib/names";
import { ACCOUNT_STATUS_LABELS, qualityWords, tierWords, webhookWords, type AdminNumber } from "~/lib/admin-whatsapp";
import type { GraphCallView, WebhookView } from "~/.server/domains/admin/whatsapp/logs";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";

export const meta: Route.MetaFunction = ({ data: loaderData }) => [
  { title: `${loaderData ? withoutBidiControls(loaderData.account.business) : "WhatsApp account"} | WhatsApp | Admin console | Jumbe` },
];

const notFound = () => data("Not Found", { status: 404 });

export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const scope = platformScope(current);
  const account = await adminAccount(scope, args.params.id);
  if (!account) throw notFound();
  const params = args.url.searchParams;
  const showLogs = params.get("view") === "logs";
  const [calls, hooks] = showLogs
    ? await Promise.all([
        graphCallsOf(scope, { ...account, phoneNumberIds: account.numbers.map((n) => n.phoneNumberId) }, params.get("calls")),
        webhooksOf(scope, account.wabaId, params.get("hooks")),
      ])
    : [null, null];
  return { account, calls, hooks, showLogs, stepUpNeeded: stepUpNeeded(current), now: Date.now() };
}

const ReasonSchema = z
  .string({ error: "Give the reason." })
  .trim()
  .min(3, "Give the reason, in a few words.")
  .max(500, "Keep the reason under 500 characters.");

type ActionResult = {
  intent: string;
  message: string;
  field?: "reason" | "confirmation";
  test?: ConnectionTest;
  /** The reason typed, shown in the refused form again. */
  reason?: string;
};

/** What Manage Account's forms post: the button's intent, a reason and the step-up's password (read by checkStepUp). */
const AccountPostSchema = z.object({
  intent: z.string().optional(),
  reason: z.string().optional(),
  confirmation: z.string().optional(),
});

export async function action(args: Route.ActionArgs) {
  const current = await requirePlatformAdmin(args);
  const account = await findAccount(args.params.id);
  if (!account) throw notFound();
  const form = await readForm(args.request);
  const post = parseWithZod(form, { schema: AccountPostSchema });
  // Every field is optional text: the post always parses, and each intent checks what it needs.
  const { intent = "", reason: reasonText = "" } = post.status === "success" ? post.value : {};
  const meta = requestMeta(args.request, args.context);
  const here = `/admin/whatsapp/${account.id}`;
  const fail = (status: number, result: ActionResult) => data(result, { status });

  if (intent === "test") {
    const test = await testConnection(current, meta, account);
    return data({ intent, message: test.answer, test } satisfies ActionResult);
  }
  if (intent === "resubscribe") {
    const outcome = await resubscribeAccount(current, meta, account);
    return outcome.ok ? redirectWithToast(here, "success", outcome.message) : fail(outcome.status, { intent, message: outcome.message });
  }
  if (intent === "reconnect" || intent === "disconnect") {
    const reason = ReasonSchema.safeParse(reasonText);
    const typed = reasonText.slice(0, 2000);
    if (!reason.success) return fail(400, { intent, field: "reason", message: reason.error.issues[0]!.message, reason: typed });
    if (intent === "reconnect") {
      const outcome = await requestReconnection(current, meta, account, reason.data);
      return outcome.ok ? redirectWithToast(here, "success", outcome.message) : fail(outcome.status, { intent, message: outcome.message });
    }
    // Disconnecting is destructive: the administrator proves who they are when the last proof is over 10 minutes old.
    const stepUp = await checkStepUp(current, form);
    if (!stepUp.ok) return fail(stepUp.status, { intent, field: "confirmation", message: stepUp.message, reason: typed });
    const outcome = await disconnectAsAdmin(current, meta, account, reason.data);
    return outcome.ok ? redirectWithToast(here, "success", outcome.message) : fail(outcome.status, { intent, message: outcome.message });
  }
  return fail(400, { intent, message: "Choose an action: test, resubscribe, disconnect or reconnect." });
}

const NUMBER_COLUMNS: Column<AdminNumber>[] = [
  {
    key: "number",
    header: "Number",
    cell: (n) => (
      <>
        <span className="font-medium">{n.display}</span>
        {n.verifiedName ? <span className="block text-xs text-slate-500">{n.verifiedName}</span> : null}
      </>
    ),
  },
  { key: "id", header: "Phone number ID", cell: (n) => <span className="font-mono text-xs">{n.phoneNumberId}</span> },
  { key: "quality", header: "Quality", cell: (n) => qualityWords(n.quality) },
  { key: "tier", header: "Messaging tier", cell: (n) => tierWords(n.messagingLimit) },
  { key: "status", header: "Meta status", cell: (n) => n.status ?? "—" },
];

const CALL_COLUMNS: Column<GraphCallView>[] = [
  { key: "at", header: "When", cell: (c) => <time dateTime={c.at}>{formatWhen(c.at)}</time> },
  {
    key: "call",
    header: "Call",
    cell: (c) => (
      <span className="font-mono text-xs">
        {c.method} {c.path}
      </span>
    ),
  },
  { key: "status", header: "Answer", cell: (c) => (c.status === null ? "No answer" : `HTTP ${c.status}`) },
  { key: "duration", header: "Time", align: "right", cell: (c) => `${formatNumber(c.durationMs)} ms` },
  { key: "error", header: "Error", cell: (c) => c.error ?? "—" },
  { key: "origin", header: "By", cell: (c) => (c.origin === "admin" ? "Administrator" : "Jumbe") },
];

const WEBHOOK_COLUMNS: Column<WebhookView>[] = [
  { key: "at", header: "Received", cell: (w) => <time dateTime={w.at}>{formatWhen(w.at)}</time> },
  { key: "fields", header: "Changes", cell: (w) => (w.fields.length ? w.fields.join(", ") : "—") },
  {
    key: "outcome",
    header: "Outcome",
    cell: (w) => (w.processed ? (w.outcome ?? "processed") : "Waiting to be processed"),
  },
  { key: "size", header: "Size", align: "right", cell: (w) => `${formatNumber(w.bytes)} bytes` },
];

export default function AdminWhatsappAccount({ loaderData, actionData }: Route.ComponentProps) {
  const { account, calls, hooks, showLogs, now } = loaderData;
  const [searchParams] = useSearchParams();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const result = actionData as ActionResult | undefined;
  const hook = webhookWords(account.subscribed, account.lastWebhookAt, now);
  const connected = account.status !== "disconnected";
  const errorFor = (intent: string, field?: string) =>
    result && result.intent === intent && !result.test && (field === undefined || result.field === field) ? [result.message] : undefined;
  const logsHref = (cursor: { calls?: string; hooks?: string }) => {
    const next = new URLSearchParams(searchParams);
    next.set("view", "logs");
    if (cursor.calls) next.set("calls", cursor.calls);
    if (cursor.hooks) next.set("hooks", cursor.hooks);
    return `?${next.toString()}#logs`;
  };
  return (
    <div className="space-y-6">
      <BackLink to="/admin/whatsapp">WhatsApp accounts</BackLink>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <PageTitle>
            <Name>{account.business}</Name>
          </PageTitle>
          <p className="mt-1 flex flex-wrap items-center gap-2 text-slate-600">
            WhatsApp Business Account <span className="font-mono text-sm">{account.wabaId}</span>
            <Badge tone={account.status === "connected" ? "success" : account.status === "disconnected" ? "neutral" : "warning"}>
              {ACCOUNT_STATUS_LABELS[account.status]}
            </Badge>
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <ButtonLink to={showLogs ? `/admin/whatsapp/${account.id}` : "?view=logs#logs"} variant="secondary">
            {showLogs ? "Hide logs" : "View Logs"}
          </ButtonLink>
          <Link to={`/admin/users/${account.organizationId}`} className="self-center text-sm text-brand-700 underline">
            The organisation
          </Link>
        </div>
      </div>

      {account.status === "token_refused" ? (
        <Notice tone="warning" title="Meta refused the stored token">
          {account.tokenRefusal ?? "Error 190"}. Sending waits until the organisation connects the account again.
        </Notice>
      ) : null}
      {account.reconnectReason ? (
        <Notice tone="warning" title="Reconnection requested">
          The organisation is asked to connect this account again. Reason: {account.reconnectReason}
        </Notice>
      ) : null}

      <Card>
        <CardHeader title="Account" />
        <SummaryList
          className="mt-3"
          items={[
            { label: "Account name", value: account.name ?? "—" },
            { label: "Messages this month", value: formatNumber(account.messagesThisMonth) },
            {
              label: "Webhook",
              value: (
                <>
                  <Badge tone={hook.tone}>{hook.label}</Badge>{" "}
                  {account.lastWebhookAt ? `last received ${formatWhen(account.lastWebhookAt)}` : "nothing received yet"}
                </>
              ),
            },
            { label: "API version", value: account.apiVersion },
            { label: "Connected since", value: formatWhen(account.connectedAt) },
            ...(account.disconnectedAt ? [{ label: "Disconnected", value: formatWhen(account.disconnectedAt) }] : []),
          ]}
        />
        <div className="mt-4">
          <Table
            caption="Phone numbers"
            showCaption
            columns={NUMBER_COLUMNS}
            rows={account.numbers}
            rowKey={(n) => n.phoneNumberId}
            empty="No number on this account."
          />
        </div>
      </Card>

      <Card aria-labelledby="test-heading">
        <CardHeader
          id="test-heading"
          title="Test Connection"
          description="One real call to Meta with the stored token (GET the WhatsApp Business Account's id and name), timed."
        />
        <Form method="post" className="mt-3">
          <Button type="submit" name="intent" value="test" variant="secondary" disabled={busy}>
            Test Connection
          </Button>
        </Form>
        {result?.test ? (
          <div className="mt-3" data-testid="connection-test">
            <Notice tone={result.test.ok ? "success" : "warning"} title={result.test.ok ? "Connection works" : "Connection failed"}>
              {result.test.answer} Time: {formatNumber(result.test.latencyMs)} ms.
            </Notice>
          </div>
        ) : null}
      </Card>

      <Card aria-labelledby="manage-heading">
        <CardHeader id="manage-heading" title="Manage Account" description="Each action is recorded in the audit log." />
        {connected ? (
          <div className="mt-4 grid gap-6 lg:grid-cols-3">
            <AdminActionForm
              title="Resubscribe to webhooks"
              description="Asks Meta again to send this account's webhooks to Jumbe."
              intent="resubscribe"
              submit="Resubscribe"
              disabled={busy}
            >
              <FormError errors={errorFor("resubscribe")} />
            </AdminActionForm>
            <AdminActionForm title="Mark for reconnection" intent="reconnect" submit="Mark for reconnection" disabled={busy}>
              <TextareaField
                label="Reason, shown to the organisation"
                name="reason"
                id="reconnect-reason"
                rows={2}
                maxLength={500}
                required
                defaultValue={result?.intent === "reconnect" ? result.reason : undefined}
                errors={errorFor("reconnect")}
              />
            </AdminActionForm>
            <AdminActionForm
              title="Disconnect"
              description="Meta stops sending this account's webhooks; its numbers stop sending. The organisation can connect it again."
              intent="disconnect"
              submit="Disconnect"
              variant="danger"
              disabled={busy}
            >
              <TextareaField
                label="Reason"
                name="reason"
                id="disconnect-reason"
                rows={2}
                maxLength={500}
                required
                defaultValue={result?.intent === "disconnect" ? result.reason : undefined}
                errors={errorFor("disconnect", "reason")}
              />
              <StepUpField
                id="disconnect-confirmation"
                needed={loaderData.stepUpNeeded}
                error={errorFor("disconnect", "confirmation")?.[0]}
              />
              {result?.intent === "disconnect" && !result.field ? <FormError errors={[result.message]} /> : null}
            </AdminActionForm>
          </div>
        ) : (
          <p className="mt-3 text-sm text-slate-600">
            This account is disconnected. Its organisation can connect it again from its WhatsApp page.
          </p>
        )}
      </Card>

      {showLogs && calls && hooks ? (
        <section id="logs" aria-labelledby="logs-heading" className="space-y-4">
          <h2 id="logs-heading" className="text-lg font-semibold">
            Logs
          </h2>
          <LogCard
            caption="Graph API calls, newest first"
            columns={CALL_COLUMNS}
            rows={calls.calls}
            empty="No Graph API call recorded in the last 30 days."
            cursor="calls"
            next={calls.next}
            pages={{ label: "Graph call pages", newest: "Newest calls", older: "Older calls" }}
            logsHref={logsHref}
          />
          <LogCard
            caption="Webhooks received, newest first"
            columns={WEBHOOK_COLUMNS}
            rows={hooks.webhooks}
            empty="No webhook received for this WhatsApp Business Account in the last 30 days."
            cursor="hooks"
            next={hooks.next}
            pages={{ label: "Webhook pages", newest: "Newest webhooks", older: "Older webhooks" }}
            logsHref={logsHref}
          />
        </section>
      ) : null}
    </div>
  );
}

/** One of View Logs' tables, with its own newest / older links (its cursor in the URL beside the other's). */
function LogCard<T extends { id: string | number }>({
  caption,
  columns,
  rows,
  empty,
  cursor,
  next,
  pages,
  logsHref,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  empty: string;
  cursor: "calls" | "hooks";
  next: string | null | undefined;
  pages: { label: string; newest: string; older: string };
  logsHref: (cursor: { calls?: string; hooks?: string }) => string;
}) {
  const [searchParams] = useSearchParams();
  const paged = !!searchParams.get(cursor);
  return (
    <Card padding="none">
      <div className="p-4">
        <Table caption={caption} showCaption columns={columns} rows={rows} rowKey={(r) => r.id} empty={empty} />
        {next || paged ? (
          <nav aria-label={pages.label} className="mt-3 flex gap-3 text-sm">
            {paged ? <TextLink to={pageHref(withoutKey(searchParams, cursor), {}) + "#logs"}>{pages.newest}</TextLink> : null}
            {next ? <TextLink to={logsHref({ [cursor]: next })}>{pages.older}</TextLink> : null}
          </nav>
        ) : null}
      </div>
    </Card>
  );
}

function withoutKey(searchParams: URLSearchParams, key: string) {
  const next = new URLSearchParams(searchParams);
  next.delete(key);
  return next;
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
