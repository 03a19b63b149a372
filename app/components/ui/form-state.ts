import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import type { SubmissionResult } from "@conform-to/react";

/**
 * The browser's half of the app's form protocol, in place of Conform's React package (decision 061:
 * 9.4 KB of a page's first visit, where this is about 1.5). The server still parses and answers with
 * Conform (`parseWithZod`, `submission.reply()`), and the pages read that answer here with the same
 * names: `form.errors`, `fields.email.errors`, `getInputProps(fields.email, { type: "email" })`.
 *
 * What it does: the server's answer (`lastResult`) gives each field its value back and its errors;
 * a browser check (`validate`, when the page has one loaded) runs on submit, on blur when asked, and
 * on every keystroke of a field already checked, and holds a refused form back with its messages.
 */

export type { SubmissionResult };

type Errors = Record<string, string[] | undefined>;
type Values = Record<string, unknown>;

/** A form's errors by field name ("" for the form's own); null when nothing can be checked yet. */
export type FormCheck = (formData: FormData) => Record<string, string[] | null> | null;

export interface FormStateOptions {
  id?: string;
  lastResult?: SubmissionResult<string[]> | null;
  defaultValue?: Record<string, unknown>;
  validate?: FormCheck;
  /** When a field is first checked; after that every keystroke checks it again. */
  shouldValidate?: "onSubmit" | "onBlur";
  /** "onSubmit": only submitting checks again (forms the browser cannot check). */
  shouldRevalidate?: "onInput" | "onSubmit";
}

export interface FormMetadata {
  id: string;
  errorId: string;
  errors: string[] | undefined;
  /** Every field's errors by name (a template's `buttons[0].text`). */
  allErrors: Errors;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  noValidate: true;
}

// The type parameter says what the field holds; the metadata is the same for every kind.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export interface FieldMetadata<Value = unknown> {
  id: string;
  name: string;
  formId: string;
  errorId: string;
  descriptionId: string;
  errors: string[] | undefined;
  /** Changes when the server's answer gives the fields new values: a control keyed by it starts again from them. */
  key: string;
  initialValue: string | string[] | undefined;
}

interface State {
  values: Values;
  errors: Errors;
  validated: Set<string>;
  generation: number;
}

function errorsFrom(error: Record<string, string[] | null> | null | undefined): Errors {
  const errors: Errors = {};
  for (const [name, messages] of Object.entries(error ?? {})) if (messages?.length) errors[name] = messages;
  return errors;
}

function stateFrom(result: SubmissionResult<string[]> | null | undefined, defaultValue: Values, previous?: State): State {
  const generation = (previous?.generation ?? 0) + (previous ? 1 : 0);
  if (!result) return { values: defaultValue, errors: {}, validated: new Set(), generation };
  const values =
    result.initialValue === null ? defaultValue : ((result.initialValue as Values | undefined) ?? previous?.values ?? defaultValue);
  const errors = result.initialValue === null ? {} : errorsFrom(result.error);
  return { values, errors, validated: new Set(Object.keys(errors)), generation };
}

/** A value by Conform's path ("buttons[0].text") in the nested values of a reply. */
function valueAt(values: Values, name: string): unknown {
  let current: unknown = values;
  for (const segment of name.match(/[^.[\]]+/g) ?? []) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function asInitial(value: unknown): string | string[] | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value;
  return undefined;
}

export function useFormState(options: FormStateOptions): [FormMetadata, Record<string, FieldMetadata>] {
  const generatedId = useId();
  const formId = options.id ?? generatedId;
  const defaultValue = options.defaultValue ?? {};
  const [seen, setSeen] = useState(options.lastResult);
  const [state, setState] = useState<State>(() => stateFrom(options.lastResult, defaultValue));
  // A new answer from the server: its values and errors replace what the browser had (none, as when
  // another form of the page was answered, changes nothing).
  if (options.lastResult !== seen) {
    setSeen(options.lastResult);
    if (options.lastResult) setState((previous) => stateFrom(options.lastResult, defaultValue, previous));
  }
  const latest = useRef({ options, state });
  useEffect(() => {
    latest.current = { options, state };
  });

  /** Checks the form as it stands; updates the errors of `names` (or of every field checked so far). */
  const check = (form: HTMLFormElement, names: "all" | string[], submitter?: HTMLElement | null) => {
    const found = latest.current.options.validate?.(new FormData(form, submitter ?? undefined));
    if (!found) return null;
    const errors = errorsFrom(found);
    setState((previous) => {
      const validated = new Set(previous.validated);
      if (names === "all") {
        for (const element of Array.from(form.elements))
          if ((element as HTMLInputElement).name) validated.add((element as HTMLInputElement).name);
        for (const name of Object.keys(errors)) validated.add(name);
        validated.add("");
      } else for (const name of names) validated.add(name);
      const next: Errors = { ...previous.errors };
      for (const name of validated) next[name] = errors[name];
      if (names === "all") for (const name of Object.keys(next)) next[name] = errors[name];
      return { ...previous, errors: next, validated };
    });
    return errors;
  };

  useEffect(() => {
    const form = document.getElementById(formId);
    if (!(form instanceof HTMLFormElement)) return;
    const nameOf = (target: EventTarget | null) =>
      target instanceof HTMLElement && "name" in target && (target as HTMLInputElement).form === form
        ? (target as HTMLInputElement).name
        : "";
    const onInput = (event: Event) => {
      const name = nameOf(event.target);
      if (name && (latest.current.options.shouldRevalidate ?? "onInput") === "onInput" && latest.current.state.validated.has(name))
        check(form, [name]);
    };
    const onBlur = (event: Event) => {
      const name = nameOf(event.target);
      if (name && latest.current.options.shouldValidate === "onBlur") check(form, [name]);
    };
    form.addEventListener("input", onInput);
    form.addEventListener("focusout", onBlur);
    return () => {
      form.removeEventListener("input", onInput);
      form.removeEventListener("focusout", onBlur);
    };
  }, [formId]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const errors = check(event.currentTarget, "all", submitter);
    if (!errors || Object.keys(errors).length === 0) return;
    event.preventDefault();
    const first = Array.from(event.currentTarget.elements).find(
      (element) => (element as HTMLInputElement).name && errors[(element as HTMLInputElement).name],
    ) as HTMLElement | undefined;
    first?.focus();
  };

  const field = (name: string): FieldMetadata => {
    const id = `${formId}-${name}`;
    return {
      id,
      name,
      formId,
      errorId: `${id}-error`,
      descriptionId: `${id}-description`,
      errors: state.errors[name],
      key: `${name}#${state.generation}`,
      initialValue: asInitial(valueAt(state.values, name)),
    };
  };
  const form: FormMetadata = {
    id: formId,
    errorId: `${formId}-error`,
    errors: state.errors[""],
    allErrors: state.errors,
    onSubmit,
    noValidate: true,
  };
  const fields = new Proxy({} as Record<string, FieldMetadata>, {
    get: (_target, name) => (typeof name === "string" ? field(name) : undefined),
  });
  return [form, fields];
}

/** The form element's attributes: its id, the browser check on submit, and no native validation (the spec's words instead). */
export function getFormProps(form: FormMetadata) {
  return {
    id: form.id,
    onSubmit: form.onSubmit,
    noValidate: form.noValidate,
    ...(form.errors ? { "aria-describedby": form.errorId } : {}),
  };
}

function controlProps(field: FieldMetadata) {
  const invalid = field.errors !== undefined;
  return {
    id: field.id,
    name: field.name,
    form: field.formId,
    ...(invalid ? { "aria-invalid": true as const, "aria-describedby": field.errorId } : {}),
  };
}

/** An input's attributes; a checkbox or radio is checked when its value is the field's. */
export function getInputProps(field: FieldMetadata, options: { type: string; value?: string | false }) {
  const props: Record<string, unknown> = { ...controlProps(field), type: options.type };
  if (options.value === false) return props;
  if (options.type === "checkbox" || options.type === "radio") {
    props.value = typeof options.value === "string" ? options.value : "on";
    props.defaultChecked = Array.isArray(field.initialValue)
      ? field.initialValue.includes(props.value as string)
      : field.initialValue === props.value;
  } else if (typeof field.initialValue === "string") props.defaultValue = field.initialValue;
  return props as ReturnType<typeof controlProps> & { type: string; defaultValue?: string; defaultChecked?: boolean; value?: string };
}

export function getTextareaProps(field: FieldMetadata) {
  return { ...controlProps(field), ...(typeof field.initialValue === "string" ? { defaultValue: field.initialValue } : {}) };
}

export function getSelectProps(field: FieldMetadata) {
  return { ...controlProps(field), ...(field.initialValue !== undefined ? { defaultValue: field.initialValue } : {}) };
}
