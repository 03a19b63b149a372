import { data } from "react-router";
import { requirePlatformAdmin, type CurrentUser, type GuardArgs } from "../../auth/guards";
import { readForm } from "../../../infrastructure/http/forms";
import { redirectWithToast } from "../../../infrastructure/http/toast";
import { requestMeta, type RequestMeta } from "../../../infrastructure/http/request-meta";
import { checkStepUp, STEP_UP_FIELD, typedValues } from "../step-up";
import { NOT_FOUND } from "./refusal";
import { refusalOf, throwIfNotFound } from "../../../infrastructure/http/refusal-reply";

/** What a refused console form shows: which form (its intent), the sentence, and the field it is about. */
export interface AdminFormError {
  intent: string;
  message: string;
  field?: string;
  /** What was typed in the form (not the password), shown in it again. */
  values?: Record<string, string>;
}

/** What one intent's work is given: who acts, from where, on which id (the route's :id), and the form. */
export interface BillingIntentInput {
  current: CurrentUser;
  meta: RequestMeta;
  id: string;
  form: FormData;
}

/**
 * One intent of a Billing console page: whether it is destructive (money moves or a tenant's matter
 * closes: the step-up applies, decision 037), and its work, which answers the toast's sentence or
 * throws a Refusal.
 */
export interface BillingIntent {
  destructive: boolean;
  work: (input: BillingIntentInput) => Promise<string>;
}

/**
 * The action of a Billing console page: the administrator only (404 to anyone else), the form read
 * once, its intent looked up in the page's table (an unknown one: 400), then that intent run (see
 * runBillingIntent) and, when done, back to `back` with a toast.
 */
export async function billingAction(
  args: GuardArgs & { params: { id?: string } },
  back: string,
  intents: Readonly<Record<string, BillingIntent>>,
) {
  const current = await requirePlatformAdmin(args);
  const form = await readForm(args.request);
  const intent = String(form.get("intent") ?? "");
  const chosen = Object.hasOwn(intents, intent) ? intents[intent] : undefined;
  if (!chosen) return unknownIntent();
  const input: BillingIntentInput = { current, meta: requestMeta(args.request, args.context), id: args.params.id ?? "", form };
  return runBillingIntent({ current, form, intent, destructive: chosen.destructive, back, work: () => chosen.work(input) });
}

/**
 * Runs one intent of a Billing console form: the step-up first for destructive ones (refused: the
 * form again with the field, nothing done), then the work; done goes back with a toast, a refusal
 * answers its status with the sentence (an unknown target: 404).
 */
async function runBillingIntent(options: {
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
      return data(
        { error: { intent, message: check.message, field: STEP_UP_FIELD, values: typedValues(form) } as AdminFormError },
        { status: check.status },
      );
  }
  try {
    const message = await options.work();
    return redirectWithToast(options.back, "success", message);
  } catch (error) {
    const refusal = refusalOf(error);
    throwIfNotFound(refusal, NOT_FOUND);
    return data(
      { error: { intent, message: refusal.message, field: refusal.field, values: typedValues(form) } as AdminFormError },
      { status: refusal.status },
    );
  }
}

/** An intent no form of the page sends. */
export const unknownIntent = () => data({ error: { intent: "", message: "Unknown action." } as AdminFormError }, { status: 400 });
