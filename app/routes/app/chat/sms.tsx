import { data, Form, href } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/sms";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import { conversationOr404 } from "~/.server/domains/inbox/list";
import { queueInboxSms, smsConnectionOf } from "~/.server/domains/sms";
import { SendSmsSchema } from "~/lib/schemas/sms";
import { SMS_PART_PRICE_CENTS, smsEstimate } from "~/lib/sms-price";
import { formatKes } from "~/lib/invoice";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card, CardHeader } from "~/components/ui/card";
import { Button } from "~/components/ui/button";
import { TextareaField, FormError } from "~/components/ui/field";
import { Toast } from "~/components/ui/toast";
import { ArrowLeft } from "~/components/ui/icons";
import { PageTitle } from "~/components/ui/page-title";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { documentPage, loadAsDocument } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// /chat/<id>/sms (issue 77, decision 148): "Send as SMS" for a conversation, when the organisation has
// SMS connected. "Check the price" shows the parts and the price before anything is sent; "Send as
// SMS" queues it. A document without React: both are plain form posts.
export const handle: PermissionHandle & PageHandle = { permission: "inbox:reply", ...documentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.sms_composer_title() }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const conversation = await conversationOr404(current.organization.id, args.params.id);
  return {
    conversation: { id: conversation.id, name: conversation.name, phone: conversation.phone },
    connected: (await smsConnectionOf(current.organization.id)) !== null,
    partPrice: formatKes(SMS_PART_PRICE_CENTS),
  };
}

export async function action(args: Route.ActionArgs) {
  const current = await requireDeclaredUser(args);
  const conversation = await conversationOr404(current.organization.id, args.params.id);
  const back = href("/chat/:id", { id: conversation.id });
  return intentAction(args, {
    permission: "inbox:reply",
    intents: {
      estimate: intent(SendSmsSchema, async ({ value }) => {
        const estimate = smsEstimate(value.body);
        return {
          intent: "estimate" as const,
          body: value.body,
          estimate: { parts: estimate.parts, price: formatKes(estimate.priceCents) },
        };
      }),
      send: intent(SendSmsSchema, async ({ value, user }) => {
        const sent = await queueInboxSms(user, { conversationId: conversation.id, body: value.body });
        return redirectWithToast(back, "success", m.sms_sent_toast({ parts: sent.parts, price: formatKes(sent.priceCents) }));
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

export default function SendSms({ loaderData, actionData }: Route.ComponentProps) {
  const { conversation, connected, partPrice } = loaderData;
  const back = href("/chat/:id", { id: conversation.id });
  const estimate = actionData && "estimate" in actionData ? actionData : null;
  const errors = actionData && "result" in actionData ? actionData.result?.error?.body : undefined;
  return (
    <div className="mx-auto max-w-2xl space-y-4 p-3">
      {actionData && "toast" in actionData && actionData.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <Link to={back} className="inline-flex items-center gap-1 text-sm text-slate-600 hover:underline">
        <ArrowLeft size={16} /> {conversation.name}
      </Link>
      <PageTitle>{m.sms_composer_title()}</PageTitle>
      <Card>
        {!connected ? (
          <p className="text-slate-600">{m.sms_refusal_not_connected()}</p>
        ) : (
          <>
            <CardHeader
              title={conversation.name}
              description={m.sms_composer_hint({ phone: conversation.phone ?? "", price: partPrice })}
            />
            <Form method="post" className="mt-3 space-y-3">
              <FormError id="sms-form-error" errors={undefined} />
              <TextareaField
                label={m.sms_composer_label()}
                name="body"
                required
                defaultValue={estimate?.body ?? ""}
                errors={errors}
                key={estimate?.body ?? "empty"}
              />
              {estimate ? (
                <p className="font-medium" data-testid="sms-estimate">
                  {m.sms_composer_estimate({ parts: estimate.estimate.parts, price: estimate.estimate.price })}
                </p>
              ) : null}
              <div className="flex flex-wrap gap-2">
                <Button type="submit" name="intent" value="estimate" variant="secondary">
                  {m.sms_composer_check()}
                </Button>
                <Button type="submit" name="intent" value="send">
                  {m.sms_composer_send()}
                </Button>
              </div>
            </Form>
          </>
        )}
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
