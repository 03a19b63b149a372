import type { SubmissionResult } from "@conform-to/react";
import * as z from "zod/mini";
import type { CurrentUser, GuardArgs } from "../../auth";
import { formFailure } from "../../../infrastructure/http/forms";
import { adminIntent, adminIntentAction } from "../form-actions";
import { redirectWithToast } from "../../../infrastructure/http/toast";
import { requestMeta, type RequestMeta } from "../../../infrastructure/http/request-meta";
import { checkStepUp, STEP_UP_FIELD } from "../step-up";
import { NOT_FOUND } from "./refusal";
import { refusalOf, refusalReply, throwIfNotFound } from "../../../infrastructure/http/refusal-reply";
import { m } from "~/paraglide/messages";

/** What one intent's work is given: who acts, from where, on which id (the route's :id), and its fields, trimmed ("" when empty). */
export interface BillingIntentInput<Name extends string = string> {
  current: CurrentUser;
  meta: RequestMeta;
  id: string;
  values: Record<Name, string>;
}

/**
 * One intent of a Billing console page: the fields its form sends, whether it is destructive (money
 * moves or a tenant's matter closes: the step-up applies, decision 037), and its work, which answers
 * the toast's sentence or throws a Refusal.
 */
export interface BillingIntent<Name extends string = string> {
  fields: readonly Name[];
  destructive: boolean;
  work: (input: BillingIntentInput<Name>) => Promise<string>;
}

/** One intent, its field names checked against what its work reads. */
export const billingIntent = <Name extends string>(intent: BillingIntent<Name>) => intent as BillingIntent;

/** Never sent back to the form: the administrator's password (or code) of a step-up. */
const HIDDEN = [STEP_UP_FIELD];

// Every field is free text here: the domain checks each and refuses at its field (a Refusal).
const text = z.optional(z.string());

/** The post of one intent's form, read through zod: its own fields and the step-up's. */
function intentSchema(fields: readonly string[]) {
  return z.object({ intent: text, [STEP_UP_FIELD]: text, ...Object.fromEntries(fields.map((name) => [name, text])) });
}

const trimmed = (fields: readonly string[], value: Record<string, unknown>) =>
  Object.fromEntries(fields.map((name) => [name, typeof value[name] === "string" ? value[name].trim() : ""]));

/**
 * The action of a Billing console page, on the console's form protocol (decision 119): the
 * administrator only (404 to anyone else), the form read once through the intent's schema, its
 * intent looked up in the page's table (an unknown one: 400), then the step-up for destructive ones
 * (refused: the form again with the field, nothing done), then the work; done goes back to `back`
 * with a toast, a refusal answers its status with Conform's reply at its field (an unknown target: 404).
 */
export function billingAction(
  args: GuardArgs & { params: { id?: string } },
  back: string,
  intents: Readonly<Record<string, BillingIntent>>,
) {
  const meta = requestMeta(args.request, args.context);
  const id = args.params.id ?? "";
  const consoleIntent = (chosen: BillingIntent) =>
    adminIntent(
      intentSchema(chosen.fields),
      async ({ value, submission, form, user, intent }) => {
        if (chosen.destructive) {
          const check = await checkStepUp(user, form);
          if (!check.ok)
            return refused(
              intent,
              check.status,
              submission.reply({ fieldErrors: { [STEP_UP_FIELD]: [check.message] }, hideFields: HIDDEN }),
            );
        }
        try {
          const message = await chosen.work({ current: user, meta, id, values: trimmed(chosen.fields, value) });
          return redirectWithToast(back, "success", message);
        } catch (error) {
          const refusal = refusalOf(error);
          throwIfNotFound(refusal, NOT_FOUND);
          return refusalReply(submission, refusal, { hideFields: HIDDEN, extra: { intent } });
        }
      },
      { reply: { hideFields: HIDDEN } },
    );
  // The console itself (platform:console): the pages' middleware checks their own (platform:money) before this.
  return adminIntentAction(args, {
    permission: "platform:console",
    intents: Object.fromEntries(Object.entries(intents).map(([name, chosen]) => [name, consoleIntent(chosen)])),
    // An intent no form of the page sends: no form shows it.
    unknown: adminIntent(intentSchema([]), ({ submission }) => unknownIntent(submission), { invalid: unknownIntent }),
  });
}

/** The form again with its intent (a page may have several), its status and Conform's reply. */
const refused = (intent: string, status: number, result: SubmissionResult<string[]>) => formFailure(result, status, undefined, { intent });

/** An intent no form of the page sends: no form shows it. */
const unknownIntent = (submission: { reply: (options: { formErrors: string[]; hideFields: string[] }) => SubmissionResult<string[]> }) =>
  refused("", 400, submission.reply({ formErrors: [m.admin_unknown_action()], hideFields: HIDDEN }));
