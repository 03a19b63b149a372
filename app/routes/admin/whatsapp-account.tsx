import { data, useNavigation } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/whatsapp-account";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { adminIntent, adminIntentAction } from "~/.server/domains/admin/form-actions";
import type { SubmissionOf } from "~/.server/infrastructure/http/intents";
import { refusalOf, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { checkStepUp, STEP_UP_FIELD, stepUpNeeded } from "~/.server/domains/admin/step-up";
import { adminAccount } from "~/.server/domains/admin/whatsapp/accounts";
import { graphCallsOf, webhooksOf } from "~/.server/domains/admin/whatsapp/logs";
import {
  disconnectAsAdmin,
  findAccount,
  requestReconnection,
  resubscribeAccount,
  testConnection,
} from "~/.server/domains/admin/whatsapp/actions";
import { AccountLogs } from "~/components/admin/whatsapp/account-logs";
import { AccountCard, AccountHeading, AccountNotices } from "~/components/admin/whatsapp/account-summary";
import { ConnectionTestCard, ManageAccountCard, type ManageActionData } from "~/components/admin/whatsapp/manage-forms";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BackLink } from "~/components/ui/back-link";
import { withoutBidiControls } from "~/lib/names";
import { m } from "~/paraglide/messages";

export const meta: Route.MetaFunction = ({ data: loaderData }) => [
  {
    title: m.admin_title({
      page: `${loaderData ? withoutBidiControls(loaderData.account.business) : m.admin_whatsapp_account()} | WhatsApp`,
    }),
  },
];

const notFound = () => data("Not Found", { status: 404 });

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
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

// A missing reason reads as an empty one: both ask for a few words (each message read in the request's language).
const REASON = z
  .string({ error: () => m.admin_whatsapp_reason_required() })
  .trim()
  .min(3, { error: () => m.admin_whatsapp_reason_required() })
  .max(500, { error: () => m.admin_whatsapp_reason_long() });

/** What Mark for reconnection and Disconnect post (Disconnect's step-up password is read by checkStepUp). */
const ReasonPostSchema = z.object({ reason: REASON });

/** What the buttons-only forms post: their button's intent alone. */
const ButtonSchema = z.object({});

/** Never sent back to the form: the administrator's password (or code) of a step-up. */
const HIDDEN = [STEP_UP_FIELD];

/** Test Connection, Resubscribe, Mark for reconnection and Disconnect (which needs a fresh proof): each a POST with its intent. */
export async function action(args: Route.ActionArgs) {
  const meta = requestMeta(args.request, args.context);
  const accountOf = async () => {
    const account = await findAccount(args.params.id);
    if (!account) throw notFound();
    return account;
  };
  const here = `/admin/whatsapp/${args.params.id}`;
  // A reason that does not fit, on an account that is there (a missing one is a 404 first).
  const invalidReason = async (submission: SubmissionOf<typeof ReasonPostSchema>, intent: string) => {
    await accountOf();
    return formFailure(submission.reply({ hideFields: HIDDEN }), 400, undefined, { intent });
  };
  return adminIntentAction(args, {
    permission: "platform:console",
    intents: {
      test: adminIntent(ButtonSchema, async ({ user, intent }) =>
        data({ intent, test: await testConnection(user, meta, await accountOf()) }),
      ),
      resubscribe: adminIntent(ButtonSchema, async ({ user, submission, intent }) => {
        const account = await accountOf();
        try {
          return redirectWithToast(here, "success", await resubscribeAccount(user, meta, account));
        } catch (error) {
          return refusalReply(submission, refusalOf(error), { field: null, extra: { intent } });
        }
      }),
      reconnect: adminIntent(
        ReasonPostSchema,
        async ({ user, value, submission, intent }) => {
          const account = await accountOf();
          try {
            // The reconnect form shows its refusals under its one field, as it always has.
            return redirectWithToast(here, "success", await requestReconnection(user, meta, account, value.reason));
          } catch (error) {
            return refusalReply(submission, refusalOf(error), { field: "reason", hideFields: HIDDEN, extra: { intent } });
          }
        },
        { invalid: invalidReason },
      ),
      disconnect: adminIntent(
        ReasonPostSchema,
        async ({ user, value, submission, form, intent }) => {
          const account = await accountOf();
          try {
            // Disconnecting is destructive: the administrator proves who they are when the last proof is over 10 minutes old.
            const stepUp = await checkStepUp(user, form);
            if (!stepUp.ok)
              return formFailure(
                submission.reply({ fieldErrors: { [STEP_UP_FIELD]: [stepUp.message] }, hideFields: HIDDEN }),
                stepUp.status,
                undefined,
                { intent },
              );
            return redirectWithToast(here, "success", await disconnectAsAdmin(user, meta, account, value.reason));
          } catch (error) {
            return refusalReply(submission, refusalOf(error), { field: null, hideFields: HIDDEN, extra: { intent } });
          }
        },
        { invalid: invalidReason },
      ),
    },
    // Only a hand-made post has no button's intent: no form of the page shows it.
    unknown: async (intent) => {
      await accountOf();
      return formFailure(null, 400, m.admin_whatsapp_choose_action(), { intent });
    },
  });
}

export default function AdminWhatsappAccount({ loaderData, actionData }: Route.ComponentProps) {
  const { account, calls, hooks, showLogs, now } = loaderData;
  const busy = useNavigation().state !== "idle";
  const answer = actionData as ManageActionData;
  return (
    <div className="space-y-6">
      <BackLink to="/admin/whatsapp">{m.admin_whatsapp_accounts()}</BackLink>
      <AccountHeading account={account} showLogs={showLogs} />
      <AccountNotices account={account} />
      <AccountCard account={account} now={now} />
      <ConnectionTestCard test={answer?.test} busy={busy} />
      <ManageAccountCard
        connected={account.status !== "disconnected"}
        stepUpNeeded={loaderData.stepUpNeeded}
        actionData={answer}
        busy={busy}
      />
      {showLogs && calls && hooks ? <AccountLogs calls={calls} hooks={hooks} /> : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
