import { Form } from "react-router";
import { getFormProps, type SubmissionResult } from "~/components/ui/form-state";
import type { ConnectionTest } from "~/.server/domains/admin/whatsapp/actions";
import { AdminActionForm } from "~/components/admin/action-form";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { FormError, TextareaField } from "~/components/ui/field";
import { Notice } from "~/components/ui/notice";
import { StepUpField } from "~/components/ui/step-up-field";
import { useServerCheckedForm } from "~/components/ui/use-schema-form";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/** What Manage Account's action answers: Test Connection's result, or the refused form's Conform reply with its intent. */
export type ManageActionData = { intent?: string; result?: SubmissionResult<string[]> | null; test?: ConnectionTest } | undefined;

type Reply = SubmissionResult<string[]> | null | undefined;

const replyFor = (actionData: ManageActionData, intent: string): Reply =>
  actionData && actionData.intent === intent ? actionData.result : undefined;

/** Test Connection: one timed call to Meta with the stored token, and its answer. */
export function ConnectionTestCard({ test, busy }: { test: ConnectionTest | undefined; busy: boolean }) {
  return (
    <Card aria-labelledby="test-heading">
      <CardHeader id="test-heading" title={m.admin_manage_test()} description={m.admin_manage_test_intro()} />
      <Form method="post" className="mt-3">
        <Button type="submit" name="intent" value="test" variant="secondary" disabled={busy}>
          {m.admin_manage_test()}
        </Button>
      </Form>
      {test ? (
        <div className="mt-3" data-testid="connection-test">
          <Notice tone={test.ok ? "success" : "warning"} title={test.ok ? m.admin_manage_test_ok() : m.admin_manage_test_failed()}>
            {test.answer} {m.admin_manage_test_time({ ms: formatNumber(test.latencyMs) })}
          </Notice>
        </div>
      ) : null}
    </Card>
  );
}

/** Manage Account: resubscribe, mark for reconnection and disconnect, each its own POST; a disconnected account has none. */
export function ManageAccountCard({
  connected,
  stepUpNeeded,
  actionData,
  busy,
}: {
  connected: boolean;
  stepUpNeeded: boolean;
  actionData: ManageActionData;
  busy: boolean;
}) {
  return (
    <Card aria-labelledby="manage-heading">
      <CardHeader id="manage-heading" title={m.admin_manage_title()} description={m.admin_manage_intro()} />
      {connected ? (
        <div className="mt-4 grid gap-6 lg:grid-cols-3">
          <AdminActionForm
            title={m.admin_manage_resubscribe_title()}
            description={m.admin_manage_resubscribe_intro()}
            intent="resubscribe"
            submit={m.admin_manage_resubscribe()}
            disabled={busy}
          >
            <FormError errors={replyFor(actionData, "resubscribe")?.error?.[""] ?? undefined} />
          </AdminActionForm>
          <ReconnectForm result={replyFor(actionData, "reconnect")} busy={busy} />
          <DisconnectForm result={replyFor(actionData, "disconnect")} stepUpNeeded={stepUpNeeded} busy={busy} />
        </div>
      ) : (
        <p className="mt-3 text-sm text-slate-600">{m.admin_manage_disconnected()}</p>
      )}
    </Card>
  );
}

/** Mark for reconnection, with the reason the organisation reads on its WhatsApp page. */
function ReconnectForm({ result, busy }: { result: Reply; busy: boolean }) {
  const [form, fields] = useServerCheckedForm<{ reason: string }>(result, { id: "reconnect-account" });
  return (
    <AdminActionForm
      title={m.admin_manage_reconnect()}
      intent="reconnect"
      submit={m.admin_manage_reconnect()}
      disabled={busy}
      formProps={getFormProps(form)}
    >
      <TextareaField
        label={m.admin_manage_reconnect_reason()}
        name={fields.reason.name}
        id="reconnect-reason"
        rows={2}
        maxLength={500}
        required
        defaultValue={fields.reason.initialValue}
        errors={fields.reason.errors}
        key={fields.reason.key}
      />
    </AdminActionForm>
  );
}

/** Disconnect, with its reason and, when the last proof is stale, the administrator's password or code. */
function DisconnectForm({ result, stepUpNeeded, busy }: { result: Reply; stepUpNeeded: boolean; busy: boolean }) {
  const [form, fields] = useServerCheckedForm<{ reason: string; confirmation: string }>(result, { id: "disconnect-account" });
  return (
    <AdminActionForm
      title={m.admin_manage_disconnect()}
      description={m.admin_manage_disconnect_intro()}
      intent="disconnect"
      submit={m.admin_manage_disconnect()}
      variant="danger"
      disabled={busy}
      formProps={getFormProps(form)}
    >
      <TextareaField
        label={m.admin_reason()}
        name={fields.reason.name}
        id="disconnect-reason"
        rows={2}
        maxLength={500}
        required
        defaultValue={fields.reason.initialValue}
        errors={fields.reason.errors}
        key={fields.reason.key}
      />
      <StepUpField id="disconnect-confirmation" needed={stepUpNeeded} error={fields.confirmation.errors?.[0]} />
      <FormError id={form.errorId} errors={form.errors} />
    </AdminActionForm>
  );
}
