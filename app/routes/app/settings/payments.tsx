import { data, href } from "react-router";
import type { Route } from "./+types/payments";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalReply, refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import { env } from "~/.server/infrastructure/config/env";
import {
  addShortcode,
  listShortcodes,
  makeDefaultShortcode,
  matchReceipt,
  paymentTemplateStates,
  removeShortcode,
  submitPaymentTemplate,
  unmatchedReceipts,
  statusDetailInWords,
  testShortcode,
  updateShortcode,
} from "~/.server/domains/payments";
import {
  AddShortcodeSchema,
  EditShortcodeSchema,
  MatchReceiptSchema,
  PaymentTemplateSchema,
  RemoveShortcodeSchema,
  ShortcodeButtonSchema,
} from "~/lib/schemas/payments";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card, CardHeader } from "~/components/ui/card";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { Toast } from "~/components/ui/toast";
import { SettingsHeader } from "~/components/settings/settings-header";
import { ShortcodeList } from "~/components/settings/payments/shortcode-list";
import { AddShortcodeCard, EditShortcodeCard } from "~/components/settings/payments/shortcode-forms";
import { UnmatchedReceipts } from "~/components/settings/payments/unmatched-receipts";
import { PaymentTemplateCard } from "~/components/settings/payments/payment-template";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Settings → Payments (issue 76, decision 136): the organisation's own M-Pesa shortcodes. Seen by
// owners, admins and agents (payments:view), changed by owners and admins (payments:manage). Sent
// as a document without React (decision 066); every form works without JavaScript.
export const handle: PermissionHandle & PageHandle = { permission: "payments:view", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.settings_payments_meta_title() }];

/** The shortcodes (no credential ever), and the one being changed or removed when the URL says so. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const canManage = can(current.role, "payments:manage");
  const shortcodes = (await listShortcodes(current.organization.id)).map((s) => ({
    ...s,
    statusDetail: statusDetailInWords(s.statusDetail),
  }));
  const params = args.url.searchParams;
  const chosen = (id: string | null) => (canManage && id ? (shortcodes.find((s) => s.id === id) ?? null) : null);
  return {
    shortcodes,
    receipts: await unmatchedReceipts(current.organization.id),
    canManage,
    editing: chosen(params.get("edit")),
    removing: params.get("confirm") === "remove" ? chosen(params.get("shortcode")) : null,
    // Outside the 24-hour window a request goes as this template (decision 140).
    paymentTemplate: await paymentTemplateStates(current.organization.id),
    // Its SMS fallback is set on Settings → SMS, which owners and admins open (decision 159).
    canSetSmsFallback: can(current.role, "whatsapp:manage"),
    // A local or demo server's sandbox is where a new shortcode is tried first.
    defaultEnvironment: env().sandbox ? ("sandbox" as const) : ("production" as const),
  };
}

// Credentials are never sent back to the page, not even the ones just typed.
const SECRET_FIELDS = ["consumerKey", "consumerSecret", "passkey"];

/**
 * Whoever sees the page may post (payments:view); the payments domain refuses every change to a role
 * without payments:manage with its own words in a toast (403), as the team page does.
 */
export async function action(args: Route.ActionArgs) {
  const meta = requestMeta(args.request, args.context);
  const here = href("/settings/payments");
  return intentAction(args, {
    permission: "payments:view",
    intents: {
      add: intent(
        AddShortcodeSchema,
        async ({ value, submission, user, intent: posted }) => {
          try {
            const added = await addShortcode(user, value, meta);
            return redirectWithToast(here, "success", m.settings_payments_added_toast({ label: added.label }));
          } catch (error) {
            const refusal = refusalOf(error);
            if (!refusal.field) throw refusal;
            return refusalReply(submission, refusal, { hideFields: SECRET_FIELDS, extra: { intent: posted } });
          }
        },
        { reply: { hideFields: SECRET_FIELDS } },
      ),
      edit: intent(
        EditShortcodeSchema,
        async ({ value, user }) => {
          const changed = await updateShortcode(user, value, meta);
          return redirectWithToast(
            here,
            "success",
            changed ? m.settings_payments_saved_toast({ label: value.label }) : m.settings_payments_unchanged_toast(),
          );
        },
        { reply: { hideFields: SECRET_FIELDS } },
      ),
      test: intent(ShortcodeButtonSchema, async ({ value, user }) => {
        const result = await testShortcode(user, value.shortcode, meta);
        return result.working
          ? redirectWithToast(here, "success", m.settings_payments_working_toast({ label: result.label }))
          : redirectWithToast(here, "error", m.settings_payments_failing_toast({ label: result.label, reason: result.reason ?? "" }));
      }),
      default: intent(ShortcodeButtonSchema, async ({ value, user }) => {
        const made = await makeDefaultShortcode(user, value.shortcode, meta);
        return redirectWithToast(here, "success", m.settings_payments_default_toast({ label: made.label }));
      }),
      // A payment received without a request, matched to it by the request's reference; a refusal said under that payment.
      match: intent(MatchReceiptSchema, async ({ value, user }) => {
        try {
          const matched = await matchReceipt(user, value.receipt, value.reference, meta);
          return redirectWithToast(here, "success", m.payreq_receipts_matched_toast(matched));
        } catch (error) {
          const refusal = refusalOf(error);
          if (refusal.status === 404 || refusal.status === 403) throw refusal;
          const matchFailed = { receiptId: value.receipt, reference: value.reference, error: refusal.message };
          return data({ matchFailed }, { status: refusal.status });
        }
      }),
      template: intent(PaymentTemplateSchema, async ({ user }) => {
        const problem = await submitPaymentTemplate(user, meta);
        return problem
          ? redirectWithToast(here, "error", m.settings_payments_template_failed_toast({ reason: problem }))
          : redirectWithToast(here, "success", m.settings_payments_template_sent_toast());
      }),
      remove: intent(RemoveShortcodeSchema, async ({ value, user, intent: posted }) => {
        if (value.confirm !== "yes") return formFailure(null, 400, m.settings_payments_refusal_confirm(), { intent: posted });
        const removed = await removeShortcode(user, value.shortcode, meta);
        return redirectWithToast(here, "success", m.settings_payments_removed_toast({ label: removed.label }));
      }),
    },
    refused: (refusal, posted) => {
      throwIfNotFound(refusal);
      return refusalToast(refusal, { intent: posted });
    },
    unknown: () => {
      throw data(m.settings_unknown_action(), { status: 400 });
    },
  });
}

export default function PaymentsSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { shortcodes, receipts, canManage, editing, removing, defaultEnvironment, paymentTemplate, canSetSmsFallback } = loaderData;
  const here = href("/settings/payments");
  const resultOf = (name: string) => (actionData?.intent === name ? actionData.result : undefined);
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <SettingsHeader current="payments" />
      <Card>
        <CardHeader title={m.settings_payments_title()} description={m.settings_payments_description()} />
        {!canManage ? <p className="mt-2 text-sm text-slate-600">{m.settings_payments_read_only()}</p> : null}
        <ShortcodeList shortcodes={shortcodes} canManage={canManage} />
        {removing ? (
          <ConfirmPanel
            title={m.settings_payments_remove_title({ label: removing.label })}
            intent="remove"
            confirmLabel={m.settings_payments_remove_confirm()}
            cancelTo={here}
            fields={{ shortcode: removing.id }}
          >
            {m.settings_payments_remove_body()}
          </ConfirmPanel>
        ) : null}
      </Card>
      <UnmatchedReceipts
        receipts={receipts}
        canManage={canManage}
        failed={actionData && "matchFailed" in actionData ? actionData.matchFailed : undefined}
      />
      <PaymentTemplateCard states={paymentTemplate} canManage={canManage} canSetSmsFallback={canSetSmsFallback} />
      {editing ? <EditShortcodeCard key={editing.id} shortcode={editing} result={resultOf("edit")} /> : null}
      {canManage && !editing ? <AddShortcodeCard result={resultOf("add")} defaultEnvironment={defaultEnvironment} /> : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
