import { data } from "react-router";
import type { CurrentUser } from "../../auth/guards";
import { redirectWithToast } from "../../http/toast";
import { checkStepUp, STEP_UP_FIELD } from "../step-up";
import { AdminBillingRefusal, NOT_FOUND } from "./refusal";

/** What a refused console form shows: which form (its intent), the sentence, and the field it is about. */
export interface AdminFormError {
  intent: string;
  message: string;
  field?: string;
}

/**
 * Runs one intent of a Billing console form: the step-up first for destructive ones (refused: the
 * form again with the field, nothing done), then the work; done goes back with a toast, a refusal
 * answers its status with the sentence (an unknown target: 404).
 */
export async function runBillingIntent(options: {
  current: CurrentUser;
  form: FormData;
  intent: string;
  destructive: boolean;
  back: string;
  work: () => Promise<string>;
}) {
  const { current, form, intent } = options;
  if (options.destructive) {
    const check = await checkStepUp(current, form);
    if (!check.ok)
      return data({ error: { intent, message: check.message, field: STEP_UP_FIELD } as AdminFormError }, { status: check.status });
  }
  try {
    const message = await options.work();
    return redirectWithToast(options.back, "success", message);
  } catch (error) {
    if (!(error instanceof AdminBillingRefusal)) throw error;
    if (error.status === 404) throw data(NOT_FOUND, { status: 404 });
    return data({ error: { intent, message: error.message, field: error.field } as AdminFormError }, { status: error.status });
  }
}

/** An intent no form of the page sends. */
export const unknownIntent = () => data({ error: { intent: "", message: "Unknown action." } as AdminFormError }, { status: 400 });
