import { intentActions } from "../../infrastructure/http/intents";
import { requestMeta } from "../../infrastructure/http/request-meta";
import { requireUserWithPermission, type CurrentUser } from "./guards";
import { holdsAll } from "./route-permissions";

/**
 * The form protocol (decision 119) bound to the guard the signed-in layouts use (decision 055): a
 * visitor is sent to sign in, a role without an intent's permission to the refusal page, before
 * its handler runs. Route actions parse their posts with these and nothing else
 * (tests/architecture/forms.test.ts). A page that answers a refused role itself (`forbidden`, the
 * inbox) is told whether the member's role holds an intent's permissions by the same table.
 */
export const { intent, intentAction, formAction } = intentActions(
  (args, needed) => requireUserWithPermission(args, needed),
  (current, needed) => holdsAll(current.role, needed),
);

/**
 * Who does what a form asks, as the domains record it (their activity lines, audit and refusals):
 * the member's organisation, the member, and the request's address and browser.
 */
export function actorOf(args: { request: Request; context?: unknown }, current: CurrentUser) {
  return { organizationId: current.organization.id, userId: current.user.id, meta: requestMeta(args.request, args.context) };
}
