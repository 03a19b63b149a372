import { data, href, redirect } from "react-router";
import type { Route } from "./+types/conversion";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import { conversationOr404 } from "~/.server/domains/inbox/list";
import { markConverted } from "~/.server/domains/ads";
import { MarkConvertedSchema } from "~/lib/schemas/ad-conversions";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

// /chat/<id>/conversion (issue 77, decision 156): the inbox header's "Mark as converted", a plain
// form post (JavaScript or not) that queues a LeadSubmitted for the ad the conversation came from
// and comes back to the conversation with a toast. A GET goes to the conversation.
export const handle: PermissionHandle = { permission: "inbox:reply" };

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const conversation = await conversationOr404(current.organization.id, args.params.id);
  return redirect(href("/chat/:id", { id: conversation.id }));
}

export async function action(args: Route.ActionArgs) {
  const current = await requireDeclaredUser(args);
  const conversation = await conversationOr404(current.organization.id, args.params.id);
  const back = href("/chat/:id", { id: conversation.id });
  return intentAction(args, {
    permission: "inbox:reply",
    intents: {
      mark: intent(MarkConvertedSchema, async ({ user }) => {
        const queued = await markConverted({ organizationId: user.organization.id, userId: user.user.id }, conversation.id);
        return redirectWithToast(back, "success", queued ? m.ads_conversion_marked_toast() : m.ads_conversion_already_toast());
      }),
    },
    refused: (refusal) => {
      throwIfNotFound(refusal);
      return redirectWithToast(back, "error", refusal.message);
    },
    unknown: () => {
      throw data(m.settings_unknown_action(), { status: 400 });
    },
  });
}
