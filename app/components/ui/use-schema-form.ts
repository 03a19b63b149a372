import { useEffect, useRef } from "react";
import type * as z from "zod/mini";
import { useFormState, type FieldMetadata, type FormMetadata, type SubmissionResult } from "~/components/ui/form-state";
import type { SchemaCheckOptions, SchemaCheck } from "./schema-check";

/**
 * A schema the browser loads when the form is first used: zod and the app's schemas stay out of a
 * page's first visit (decision 061). Made once per form, at module level:
 * `const topup = lazySchema(() => import("~/lib/schemas/billing"), "TopupSchema")`.
 */
export type LazySchema<Schema> = () => Promise<Schema>;

export function lazySchema<Module, Name extends keyof Module>(load: () => Promise<Module>, name: Name): LazySchema<Module[Name]> {
  let loaded: Promise<Module[Name]> | null = null;
  return () =>
    (loaded ??= load().then(
      (module) => module[name],
      (error: unknown) => {
        loaded = null; // a failed download is asked for again at the next use
        throw error;
      },
    ));
}

interface SchemaFormOptions extends SchemaCheckOptions {
  id?: string;
  defaultValue?: Record<string, string | undefined>;
  /** When the first check runs; after that every keystroke re-checks. */
  shouldValidate?: "onSubmit" | "onBlur";
}

/** The fields of a form, by name, as its pages read them. */
export type FieldsOf<Input> = { [Name in keyof Input]-?: FieldMetadata<Input[Name]> };

/**
 * Conform wired to a shared schema: the browser shows the same messages the server would send back.
 * The schema (and zod) load when the form is first focused or pressed; a form submitted before they
 * arrive is checked by the server, as without JavaScript, and the checks run in the browser after.
 */
export function useSchemaForm<Schema extends z.ZodMiniType<Record<string, unknown>>>(
  schema: LazySchema<Schema>,
  lastResult: SubmissionResult<string[]> | null | undefined,
  options: SchemaFormOptions = {},
) {
  const check = useRef<SchemaCheck | null>(null);
  const requested = useRef(false);
  const optionsRef = useRef(options);
  useEffect(() => {
    optionsRef.current = options;
  });
  const load = () => {
    if (requested.current) return;
    requested.current = true;
    Promise.all([import("./schema-check"), schema()]).then(
      ([{ schemaCheck }, loaded]) => {
        check.current = schemaCheck(loaded, optionsRef.current);
      },
      () => {
        requested.current = false; // a failed download: the next use asks again; the server checks meanwhile
      },
    );
  };
  const [form, fields] = useFormState({
    id: options.id,
    lastResult,
    defaultValue: options.defaultValue,
    // Until the schema has arrived nothing is checked here: the server checks the post.
    validate: (formData) => {
      if (check.current) return check.current(formData);
      load();
      return null;
    },
    shouldValidate: options.shouldValidate ?? "onSubmit",
    shouldRevalidate: "onInput",
  });
  useEffect(() => {
    const element = document.getElementById(form.id);
    if (!element) return;
    const start = () => load();
    element.addEventListener("focusin", start, { once: true });
    element.addEventListener("pointerdown", start, { once: true });
    return () => {
      element.removeEventListener("focusin", start);
      element.removeEventListener("pointerdown", start);
    };
    // `load` only reads refs; the form's element is what matters.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [form.id]);
  return [form, fields as FieldsOf<z.input<Schema>>] as [FormMetadata, FieldsOf<z.input<Schema>>];
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
  const [form, fields] = useFormState({
    id: options.id,
    lastResult,
    defaultValue: options.defaultValue,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onSubmit",
  });
  return [form, fields as FieldsOf<Fields>] as [FormMetadata, FieldsOf<Fields>];
}
