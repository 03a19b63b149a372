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

/**
 * Conform for a form whose schema only the server can run (it needs server code: a phone number's
 * metadata, the administrator's password for a step-up). Nothing is checked in the browser: the
 * server's reply (`lastResult`) brings the errors and what was typed, and they stay until the next
 * submit, with or without JavaScript. Only submitting checks again: Conform without a browser check
 * would post the form to the server to re-check a field as it is typed.
 */
export function useServerCheckedForm<Fields extends Record<string, unknown>>(
  lastResult: SubmissionResult<string[]> | null | undefined,
  options: { id: string; defaultValue?: Partial<Record<keyof Fields, string>> },
) {
  return useForm<Fields>({
    id: options.id,
    lastResult,
    defaultValue: options.defaultValue as never,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onSubmit",
  });
}
