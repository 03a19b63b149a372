import { intentActions } from "../../infrastructure/http/intents";
import { requireUserWithPermission } from "./guards";

/**
 * The form protocol (decision 119) bound to the guard the signed-in layouts use (decision 055): a
 * visitor is sent to sign in, a role without an intent's permission to the refusal page, before
 * its handler runs. Route actions parse their posts with these and nothing else
 * (tests/architecture/forms.test.ts).
 */
export const { intent, intentAction, formAction } = intentActions((args, needed) => requireUserWithPermission(args, needed));
