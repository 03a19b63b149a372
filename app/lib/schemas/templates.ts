// Shared with the browser for the checks as you type; the server checks again (app/.server/domains/templates/manage.ts).
import * as z from "zod/mini";
import { payloadFields, readTemplateForm } from "../template-form";

import { CATEGORY_VALUES, LANGUAGE_VALUES, TEMPLATE_STATUSES, templateProblems, type Problems, type TemplateInput } from "../templates";

export { SAVING_INTENTS } from "./templates-rules";

const payload = z.custom<Record<string, unknown>>((value) => value !== null && typeof value === "object");

/**
 * The template form's fields as a TemplateInput, without judging them: what the server keeps and
 * sends back while a row is added or removed, and what the preview shows.
 */
export const TemplateFieldsSchema = z.pipe(
  payload,
  z.transform((fields): TemplateFields => ({ ...readTemplateForm(payloadFields(fields)) })),
);

/** A TemplateInput as Conform's forms take a schema's output: a record of its fields. */
export type TemplateFields = TemplateInput & Record<string, unknown>;

/** A problem's key (`buttons[0].text`, `bodyExamples[1]`, `form`) as the path Conform names it by. */
function problemPath(key: string): (string | number)[] {
  if (key === "form") return [];
  return (key.match(/[^.[\]]+/g) ?? []).map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}

/** The template as it would be saved: every problem Jumbe finds is said at its field. */
export const TemplateFormSchema = TemplateFieldsSchema.check(
  z.superRefine((input: TemplateInput, ctx) => {
    for (const [key, message] of Object.entries(templateProblems(input)))
      ctx.issues.push({ code: "custom", message, path: problemPath(key), input });
  }),
);

/** Problems (the domain's, keyed by field, `form` above the form) as Conform's reply options. */
export function problemErrors(problems: Problems) {
  const { form, ...fields } = problems;
  return {
    formErrors: form ? [form] : [],
    fieldErrors: Object.fromEntries(Object.entries(fields).map(([key, message]) => [key, [message]])),
  };
}

/**
 * Which button sent the template form (saving, submitting, or changing its rows) and the account a
 * new template goes to, read before the rest.
 */
export const TemplatePostSchema = z.object({ intent: z._default(z.string(), ""), accountId: z.optional(z.string()) });

/** A filter's value from a link: one of `allowed`, or no filter (unknown values are ignored, not refused). */
const choice = <T extends string>(allowed: readonly [T, ...T[]]) => z.catch(z.optional(z.enum(allowed)), undefined);

/** The templates list's GET filters: search (trimmed, at most 100 characters), status, type and language. */
export const TemplateFiltersSchema = z.object({
  q: z.catch(
    z.pipe(
      z.optional(z.string()),
      z.transform((q) => q?.trim().slice(0, 100) || undefined),
    ),
    undefined,
  ),
  status: choice(TEMPLATE_STATUSES),
  type: choice(CATEGORY_VALUES),
  language: choice(LANGUAGE_VALUES),
});

/** The templates list's buttons: copy or delete a template (delete confirmed in its dialog), or sync from Meta. */
export const TemplateListActionSchema = z.object({
  intent: z.enum(["copy", "delete", "sync"]),
  template: z._default(z.string(), ""),
  confirm: z.optional(z.string()),
});
