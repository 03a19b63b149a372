import { data, Form, href } from "react-router";
import type { Route } from "./+types/flow-new";
import * as z from "zod/mini";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalToast } from "~/.server/infrastructure/http/refusal-reply";
import { createFlow } from "~/.server/domains/automations/flows/store";
import { FLOW_MESSAGES, FLOW_NAME_MAX } from "~/lib/schemas/flows";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BackLink } from "~/components/ui/back-link";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { PageTitle } from "~/components/ui/page-title";
import { Toast } from "~/components/ui/toast";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// A new flow's name (/automations/flows/new): a document without React (decision 066); its steps are
// added on the builder it leads to.
export const handle: PermissionHandle & PageHandle = { permission: "automations:manage", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.automations_flows_new_meta_title() }];

export async function loader(args: Route.LoaderArgs) {
  await requireDeclaredUser(args);
  return {};
}

const NewFlowSchema = z.object({ name: postedText });

/** Adds the flow (a draft) and opens its builder; a name refused is said at its field. */
export async function action(args: Route.ActionArgs) {
  return intentAction(args, {
    permission: "automations:manage",
    intents: {
      create: intent(NewFlowSchema, async ({ value: { name }, user, intent: posted }) => {
        const actor = { organizationId: user.organization.id, userId: user.user.id, meta: requestMeta(args.request, args.context) };
        try {
          const flow = await createFlow(actor, { name });
          return redirectWithToast(
            href("/automations/flows/:id", { id: flow.id }),
            "success",
            m.automations_flows_added({ name: flow.name }),
          );
        } catch (error) {
          const refusal = refusalOf(error);
          if (refusal.field !== "name") return refusalToast(refusal, { intent: posted, errors: {}, name });
          return data({ intent: posted, toast: null, errors: { name: [refusal.message] }, name }, { status: 400 });
        }
      }),
    },
    unknown: () => {
      throw data(FLOW_MESSAGES.unknownAction, { status: 400 });
    },
  });
}

export default function NewFlow({ actionData }: Route.ComponentProps) {
  const errors = actionData && "errors" in actionData ? (actionData.errors as { name?: string[] }) : {};
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div className="max-w-3xl">
        <BackLink to={href("/automations/flows")}>{m.automations_flows_back()}</BackLink>
        <PageTitle>{m.automations_flows_new_title()}</PageTitle>
        <p className="text-slate-600">{m.automations_flows_new_intro()}</p>
      </div>
      <Card>
        <Form method="post" className="max-w-xl space-y-4">
          <Field
            name="name"
            label={m.automations_flows_field_name()}
            defaultValue={actionData?.name ?? ""}
            maxLength={FLOW_NAME_MAX}
            errors={errors.name}
          />
          <Button type="submit" name="intent" value="create">
            {m.automations_flows_create()}
          </Button>
        </Form>
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
