import { useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import * as z from "zod/mini";

// Nothing to check: a submission that skips the form's schema (see `skipWhen`).
const NOTHING = z.object({});

interface SchemaFormOptions {
  id?: string;
  defaultValue?: Record<string, string | undefined>;
  /** Rewrites the posted fields before validation (the six OTP boxes become one value). */
  prepare?: (formData: FormData) => FormData;
  /** When the first check runs; after that every keystroke re-checks. */
  shouldValidate?: "onSubmit" | "onBlur";
  /**
   * Submissions that are not the form's main purpose and must not be held back by its checks
   * (Conform validates whatever button was pressed): e.g. "resend the code" with the boxes empty.
   */
  skipWhen?: (formData: FormData) => boolean;
}

/** Conform wired to a shared schema: the browser shows the same messages the server would send back. */
export function useSchemaForm<Schema extends z.ZodMiniType<Record<string, unknown>>>(
  schema: Schema,
  lastResult: SubmissionResult<string[]> | null | undefined,
  options: SchemaFormOptions = {},
) {
  return useForm<z.input<Schema> & Record<string, unknown>, z.output<Schema>>({
    id: options.id,
    lastResult,
    defaultValue: options.defaultValue as never,
    onValidate: ({ formData }) =>
      options.skipWhen?.(formData)
        ? (parseWithZod(formData, { schema: NOTHING }) as never)
        : parseWithZod(options.prepare ? options.prepare(formData) : formData, { schema }),
    shouldValidate: options.shouldValidate ?? "onSubmit",
    shouldRevalidate: "onInput",
  });
}
