import { intentActions } from "../../infrastructure/http/intents";
import { requirePlatformStaff } from "../auth";

/**
 * The form protocol (decision 119) bound to the console's guard (decision 112): anyone but a
 * platform administrator holding the intent's permission gets the console's 404 before a handler
 * runs. The console's route actions parse their posts with these and nothing else
 * (tests/architecture/forms.test.ts).
 */
export const {
  intent: adminIntent,
  intentAction: adminIntentAction,
  formAction: adminFormAction,
} = intentActions((args, needed) => requirePlatformStaff(args, needed));
