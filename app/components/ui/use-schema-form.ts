import { useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { z } from "zod/mini";

interface SchemaFormOptions {
  id?: string;
  defaultValue?: Record<string, string | undefined>;
  /** Rewrites the posted fields before validation (the six OTP boxes become one value). */
  prepare?: (formData: FormData) => FormData;
  /** When the first check runs; after that every keystroke re-checks. */
  shouldValidate?: "onSubmit" | "onBlur";
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
    onValidate: ({ formData }) => parseWithZod(options.prepare ? options.prepare(formData) : formData, { schema }),
    shouldValidate: options.shouldValidate ?? "onSubmit",
    shouldRevalidate: "onInput",
  });
}
