import type { SubmissionResult } from "~/components/ui/form-state";

/** What a Billing console action answers a refused form: Conform's reply and the intent of the form it refused. */
export type BillingActionData = { result?: SubmissionResult<string[]> | null; intent?: string } | undefined;

/** The reply of the form with `intent`, when the last post was that form's. */
export const replyFor = (actionData: BillingActionData, intent: string) =>
  actionData && actionData.intent === intent ? actionData.result : undefined;

/** The errors of the whole form (not of one field) in a reply, for a page that shows them outside the form. */
export const formErrorsOf = (result: SubmissionResult<string[]> | null | undefined) => result?.error?.[""] ?? undefined;
