import { data, href, redirectDocument } from "react-router";
import type { Route } from "./+types/index";
import * as z from "zod/mini";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction, actorOf } from "~/.server/domains/auth/form-actions";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalToast } from "~/.server/infrastructure/http/refusal-reply";
import { integrationCards, type IntegrationCard } from "~/.server/domains/integrations/page";
import { connectableProvider, startConnect } from "~/.server/domains/integrations/oauth";
import { disconnectIntegration } from "~/.server/domains/integrations/connections";
import { removeAllRestHooks } from "~/.server/domains/integrations/rest-hooks";
import { catalogueEntry } from "~/.server/domains/integrations/catalogue";
import { unknownIntegrationAction } from "~/.server/domains/integrations/page";
import { categoryOf, categoryWords, INTEGRATION_CATEGORIES } from "~/lib/integrations";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { PageTitle } from "~/components/ui/page-title";
import { Tabs } from "~/components/ui/tabs";
import { Toast } from "~/components/ui/toast";
import { UrlDialog } from "~/components/ui/dialog";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { Notice } from "~/components/ui/notice";
import { IntegrationCardView } from "~/components/integrations/integration-card";
import { ConnectDialogBody } from "~/components/integrations/connect-dialog";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// The catalogue: a document without React (decision 066). The category filter is links, the connect
// dialog is `?dialog=connect-<id>` and disconnecting asks at `?confirm=disconnect&integration=<id>`:
// all of it works without JavaScript.
export const handle: PermissionHandle & PageHandle = { permission: "developer:view", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.integrations_title()} | Jumbe` }];

const CONNECT_DIALOG = /^connect-([a-z0-9-]{1,40})$/;

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const params = args.url.searchParams;
  const category = categoryOf(params.get("category"));
  const all = await integrationCards(current.organization.id);
  const cards = category ? all.filter((card) => card.category === category) : all;
  const canManage = can(current.role, "developer:manage");
  // The dialog's integration, from the whole catalogue (the filter may hide its card); unknown: 404.
  const dialogId = CONNECT_DIALOG.exec(params.get("dialog") ?? "")?.[1] ?? null;
  let dialog: IntegrationCard | null = null;
  if (dialogId) {
    dialog = all.find((card) => card.id === dialogId) ?? null;
    if (!dialog) throw data(m.integrations_unknown(), { status: 404 });
  }
  let disconnecting: { id: string; name: string } | null = null;
  if (canManage && params.get("confirm") === "disconnect") {
    const found = cards.find((card) => card.id === params.get("integration") && card.status === "connected");
    if (!found) throw data(m.integrations_not_connected(), { status: 404 });
    disconnecting = { id: found.id, name: found.name };
  }
  return { cards, category, canManage, dialog, disconnecting };
}

/** Connecting (to the provider's consent page) and disconnecting: owners and admins. */
const Connect = z.object({ integration: postedText, shop: postedText });
const Disconnect = z.object({ integration: postedText, confirm: postedText });

export async function action(args: Route.ActionArgs) {
  const here = href("/integrations");
  return intentAction(args, {
    permission: "developer:manage",
    intents: {
      connect: intent(Connect, async ({ value, user }) =>
        redirectDocument(await startConnect(actorOf(args, user), value.integration, { shop: value.shop })),
      ),
      disconnect: intent(Disconnect, async ({ value: { integration, confirm }, user, intent: posted }) => {
        if (confirm !== "yes") return formFailure(null, 400, m.integrations_confirm_first(), { intent: posted });
        const actor = actorOf(args, user);
        const entry = catalogueEntry(integration);
        if (entry?.connect === "rest-hooks") {
          const count = await removeAllRestHooks(actor);
          return redirectWithToast(here, "success", m.integrations_hooks_removed({ count }));
        }
        // Coming-soon and unknown ones are refused in words, as connecting them is.
        if (!entry || entry.connect !== "oauth") connectableProvider(integration);
        const { name, revoked } = await disconnectIntegration(actor, integration);
        return redirectWithToast(
          here,
          "success",
          revoked ? m.integrations_disconnected({ name }) : m.integrations_disconnected_unrevoked({ name }),
        );
      }),
    },
    refused: (refusal, posted) => refusalToast(refusal, { intent: posted }),
    unknown: (posted) => refusalToast(unknownIntegrationAction(), { intent: posted }),
  });
}

export default function Integrations({ loaderData, actionData }: Route.ComponentProps) {
  const { cards, category, canManage, dialog, disconnecting } = loaderData;
  const search = new URLSearchParams(category ? { category } : {});
  const here = category ? `?category=${encodeURIComponent(category)}` : href("/integrations");
  const tabs = [
    { label: m.integrations_category_all(), to: href("/integrations"), current: !category },
    ...INTEGRATION_CATEGORIES.map((c) => ({ label: categoryWords(c), to: `?category=${encodeURIComponent(c)}`, current: c === category })),
  ];
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div className="max-w-3xl">
        <PageTitle>{m.integrations_title()}</PageTitle>
        <p className="text-slate-600">{m.integrations_intro()}</p>
      </div>
      {canManage ? null : <Notice>{m.integrations_read_only()}</Notice>}
      <Tabs items={tabs} label={m.integrations_category_filter()} />
      {cards.length ? (
        <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3" aria-label={m.integrations_list_label()}>
          {cards.map((card) => (
            <li key={card.id} className="flex">
              <IntegrationCardView card={card} canManage={canManage} search={search} />
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-slate-600">{m.integrations_empty()}</p>
      )}
      {disconnecting ? (
        <ConfirmPanel
          title={m.integrations_disconnect_title({ name: disconnecting.name })}
          intent="disconnect"
          confirmLabel={m.integrations_disconnect_confirm()}
          cancelTo={here}
          fields={{ integration: disconnecting.id }}
        >
          {disconnecting.id === "rest-hooks" ? m.integrations_disconnect_hooks_body() : m.integrations_disconnect_body()}
        </ConfirmPanel>
      ) : null}
      {dialog ? (
        <UrlDialog
          name={`connect-${dialog.id}`}
          searchParams={new URLSearchParams({ ...Object.fromEntries(search), dialog: `connect-${dialog.id}` })}
          title={m.integrations_connect_title({ name: dialog.name })}
          size="lg"
        >
          <ConnectDialogBody card={dialog} canManage={canManage} />
        </UrlDialog>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
