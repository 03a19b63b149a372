import { parseWithZod } from "@conform-to/zod/v4";
import * as z from "zod/mini";

// Loaded on demand by useSchemaForm (decision 061): zod and the check, once a form is in use.

export interface SchemaCheckOptions {
  /** Rewrites the posted fields before validation (the six OTP boxes become one value). */
  prepare?: (formData: FormData) => FormData;
  /**
   * Submissions that are not the form's main purpose and must not be held back by its checks
   * (Conform validates whatever button was pressed): e.g. "resend the code" with the boxes empty.
   */
  skipWhen?: (formData: FormData) => boolean;
}

// Nothing to check: a submission that skips the form's schema (see `skipWhen`).
const NOTHING = z.object({});

/** A form's errors by field name ("" for the form's own): none when it passes. */
export type SchemaCheck = (formData: FormData) => Record<string, string[] | null>;

/** The browser's check of `schema`: the messages the server would send back. */
export function schemaCheck(schema: z.ZodMiniType, options: SchemaCheckOptions): SchemaCheck {
  return (formData) => {
    const submission = options.skipWhen?.(formData)
      ? parseWithZod(formData, { schema: NOTHING })
      : parseWithZod(options.prepare ? options.prepare(formData) : formData, { schema });
    return submission.status === "error" ? (submission.error ?? {}) : {};
  };
}
