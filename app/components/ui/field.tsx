import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";
import { Eye, EyeOff } from "~/components/ui/icons";
import { useEnhanced } from "~/components/ui/enhanced";
import { m } from "~/paraglide/messages";

export interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: ReactNode;
  errors?: string[];
  hint?: ReactNode;
  markRequired?: boolean;
  trailing?: ReactNode;
}

// A field in error stays red while focused: the aria-invalid variants outrank the brand focus colours.
export const INVALID_FOCUS = "aria-invalid:border-red-500 aria-invalid:focus:border-red-600 aria-invalid:focus:ring-red-100";

// The kit's text box, select and text area: `.field-input` in app.css (one class, not 270 characters of
// utilities in every field of every form, issue 42), red when aria-invalid.
const inputClass = "field-input";

/**
 * A labelled input whose error text is tied to it with aria-describedby. Required fields are
 * marked, not enforced by the browser, so the spec's own messages show with JavaScript off too.
 */
export function Field({ label, errors, hint, markRequired, trailing, id, className, ...input }: FieldProps) {
  const wiring = useFieldWiring({ id, errors, hint, markRequired });
  return (
    <FieldFrame label={label} errors={errors} hint={hint} markRequired={markRequired} className={className} wiring={wiring}>
      <div className="relative">
        <input {...wiring.control} className={`${inputClass} ${trailing ? "pr-11" : ""}`} {...input} />
        {trailing}
      </div>
    </FieldFrame>
  );
}

/**
 * A password field with a show/hide toggle. The toggle needs a script (app/assets/forms.js), so the
 * server renders it hidden and the script shows it: without scripts there is nothing to press.
 */
export function PasswordField(props: Omit<FieldProps, "type" | "trailing">) {
  const enhanced = useEnhanced<HTMLButtonElement>();
  const toggle = (
    <button
      ref={enhanced}
      type="button"
      hidden
      data-password-toggle
      data-show-label={m.auth_forms_show_password()}
      data-hide-label={m.auth_forms_hide_password()}
      className="group absolute inset-y-0 right-0 flex w-11 items-center justify-center text-slate-500 hover:text-slate-800"
      aria-label={m.auth_forms_show_password()}
      aria-pressed="false"
    >
      <Eye className="size-5 group-aria-pressed:hidden" aria-hidden />
      <EyeOff className="hidden size-5 group-aria-pressed:block" aria-hidden />
    </button>
  );
  return <Field {...props} type="password" trailing={toggle} />;
}

export function FormError({ id, errors }: { id?: string; errors?: string[] | null }) {
  if (!errors?.length) return null;
  return (
    <div id={id} role="alert" className="mb-4 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-700">
      {errors[0]}
    </div>
  );
}

export function FormSuccess({ message }: { message?: string | null }) {
  if (!message) return null;
  return (
    <div role="status" className="mb-4 rounded-lg border border-brand-200 bg-brand-50 px-3 py-2 text-sm text-brand-900">
      {message}
    </div>
  );
}

/**
 * The ids and ARIA attributes of one control: its label's target, its hint and error texts tied to
 * it with aria-describedby, and aria-invalid when it has an error. Every field of the kit uses it.
 */
export function useFieldWiring({
  id,
  errors,
  hint,
  markRequired,
}: {
  id?: string;
  errors?: string[];
  hint?: ReactNode;
  markRequired?: boolean;
}) {
  const fallbackId = useId();
  const controlId = id ?? fallbackId;
  const errorId = `${controlId}-error`;
  const hintId = `${controlId}-hint`;
  const invalid = !!errors?.length;
  return {
    controlId,
    errorId,
    hintId,
    invalid,
    control: {
      id: controlId,
      "aria-invalid": invalid || undefined,
      "aria-required": markRequired || undefined,
      "aria-describedby": [invalid ? errorId : null, hint ? hintId : null].filter(Boolean).join(" ") || undefined,
    },
  };
}

interface FieldFrameProps {
  label: ReactNode;
  errors?: string[];
  hint?: ReactNode;
  markRequired?: boolean;
  className?: string;
}

function FieldFrame({
  label,
  hint,
  errors,
  markRequired,
  className,
  wiring,
  children,
}: FieldFrameProps & { wiring: ReturnType<typeof useFieldWiring>; children: ReactNode }) {
  return (
    <div className={className}>
      <label htmlFor={wiring.controlId} className="field-label">
        {label}
        {markRequired ? (
          <span className="ml-0.5 text-red-600" aria-hidden>
            *
          </span>
        ) : null}
      </label>
      {children}
      {hint ? (
        <p id={wiring.hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      <p id={wiring.errorId} className="field-error">
        {errors?.[0] ?? ""}
      </p>
    </div>
  );
}

/** A labelled <select>; `options` as value and label pairs, or children <option>s. */
export function SelectField({
  label,
  errors,
  hint,
  markRequired,
  className,
  id,
  options,
  children,
  ...select
}: FieldFrameProps & SelectHTMLAttributes<HTMLSelectElement> & { options?: { value: string; label: string }[] }) {
  const wiring = useFieldWiring({ id, errors, hint, markRequired });
  return (
    <FieldFrame label={label} errors={errors} hint={hint} markRequired={markRequired} className={className} wiring={wiring}>
      <select {...wiring.control} className={`${inputClass} pr-8`} {...select}>
        {options?.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
        {children}
      </select>
    </FieldFrame>
  );
}

/** A labelled <textarea>; with `maxLength`, the hint says how many characters are allowed. */
export function TextareaField({
  label,
  errors,
  hint,
  markRequired,
  className,
  id,
  ...textarea
}: FieldFrameProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const wiring = useFieldWiring({ id, errors, hint, markRequired });
  return (
    <FieldFrame label={label} errors={errors} hint={hint} markRequired={markRequired} className={className} wiring={wiring}>
      <textarea {...wiring.control} className={`${inputClass} min-h-24`} rows={4} {...textarea} />
    </FieldFrame>
  );
}

/** A file input with its label; `accept` and a hint saying what is allowed ("CSV, up to 5 MB"). */
export function FileField({
  label,
  errors,
  hint,
  markRequired,
  className,
  id,
  ...input
}: FieldFrameProps & Omit<InputHTMLAttributes<HTMLInputElement>, "type">) {
  const wiring = useFieldWiring({ id, errors, hint, markRequired });
  return (
    <FieldFrame label={label} errors={errors} hint={hint} markRequired={markRequired} className={className} wiring={wiring}>
      <input
        type="file"
        {...wiring.control}
        className={`block w-full rounded-lg border border-slate-300 bg-white text-sm text-slate-700 file:mr-3 file:border-0 file:bg-slate-100 file:px-3 file:py-2.5 file:font-medium file:text-slate-800 hover:file:bg-slate-200 ${INVALID_FOCUS}`}
        {...input}
      />
    </FieldFrame>
  );
}

/** A checkbox with its label beside it, and its hint and error under it. */
export function CheckboxField({
  label,
  errors,
  hint,
  className,
  id,
  ...input
}: Omit<FieldFrameProps, "markRequired"> & Omit<InputHTMLAttributes<HTMLInputElement>, "type">) {
  const wiring = useFieldWiring({ id, errors, hint });
  return (
    <div className={className}>
      <div className="flex items-start gap-2">
        <input
          type="checkbox"
          {...wiring.control}
          className="mt-0.5 size-4 rounded border-slate-300 text-brand-700 focus:ring-brand-600"
          {...input}
        />
        <label htmlFor={wiring.controlId} className="text-sm text-slate-700">
          {label}
        </label>
      </div>
      {hint ? (
        <p id={wiring.hintId} className="mt-1 ml-6 text-xs text-slate-500">
          {hint}
        </p>
      ) : null}
      {wiring.invalid ? (
        <p id={wiring.errorId} className="mt-0.5 ml-6 text-sm text-red-600">
          {errors?.[0]}
        </p>
      ) : null}
    </div>
  );
}

const filterControl = "filter-control";

/**
 * A compact labelled <select> for a GET filter bar (no error line: a filter's bad value is said
 * once, above the results). `options` as value and label pairs; `all`, when given, comes first
 * with an empty value.
 */
export function FilterSelect({
  name,
  label,
  value,
  options,
  all,
}: {
  name: string;
  label: string;
  value?: string;
  options: [string, string][];
  all?: string;
}) {
  return (
    // Never narrower than a short choice ("All plans") needs to be read and tapped, however the bar wraps.
    <label className="filter-label min-w-32">
      {label}
      <select name={name} defaultValue={value ?? ""} className={filterControl}>
        {all !== undefined ? <option value="">{all}</option> : null}
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A compact labelled <input> for a GET filter bar (search box, date). */
export function FilterInput({ label, ...input }: { label: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <label className="filter-label">
      {label}
      <input {...input} className={filterControl} />
    </label>
  );
}

/**
 * A group of radio buttons under a legend (a choice of a few: a payment method, a plan), each option
 * with its label and an optional line under it; the group's hint and error are tied to the fieldset.
 */
export function RadioGroupField({
  legend,
  name,
  options,
  defaultValue,
  errors,
  hint,
  id,
  className = "",
}: {
  legend: ReactNode;
  name: string;
  options: { value: string; label: ReactNode; description?: ReactNode }[];
  defaultValue?: string;
  errors?: string[];
  hint?: ReactNode;
  id?: string;
  className?: string;
}) {
  const wiring = useFieldWiring({ id, errors, hint });
  return (
    <fieldset id={wiring.controlId} aria-describedby={wiring.control["aria-describedby"]} className={className}>
      <legend className="field-label">{legend}</legend>
      <div className="grid gap-2">
        {options.map((option) => {
          const optionId = `${wiring.controlId}-${option.value.replace(/\W+/g, "-")}`;
          return (
            <label key={option.value} htmlFor={optionId} className="choice">
              <input
                type="radio"
                id={optionId}
                name={name}
                value={option.value}
                defaultChecked={option.value === defaultValue}
                className="choice-radio"
              />
              <span className="text-sm">
                <span className="font-medium text-slate-900">{option.label}</span>
                {option.description ? <span className="block text-slate-600">{option.description}</span> : null}
              </span>
            </label>
          );
        })}
      </div>
      {hint ? (
        <p id={wiring.hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      <p id={wiring.errorId} className="field-error">
        {errors?.[0] ?? ""}
      </p>
    </fieldset>
  );
}

/**
 * A group of checkboxes under a legend (several of a few: the numbers an automation answers on),
 * each posted under the same name when ticked; the group's hint and error are tied to the fieldset.
 * With none ticked nothing is posted for the name.
 */
export function CheckboxGroupField({
  legend,
  name,
  options,
  defaultValues = [],
  errors,
  hint,
  id,
  className = "",
}: {
  legend: ReactNode;
  name: string;
  options: { value: string; label: ReactNode }[];
  defaultValues?: readonly string[];
  errors?: string[];
  hint?: ReactNode;
  id?: string;
  className?: string;
}) {
  const wiring = useFieldWiring({ id, errors, hint });
  return (
    <fieldset id={wiring.controlId} aria-describedby={wiring.control["aria-describedby"]} className={className}>
      <legend className="field-label">{legend}</legend>
      <div className="grid gap-2">
        {options.map((option) => {
          const optionId = `${wiring.controlId}-${option.value.replace(/\W+/g, "-")}`;
          return (
            <label key={option.value} htmlFor={optionId} className="choice">
              <input
                type="checkbox"
                id={optionId}
                name={name}
                value={option.value}
                defaultChecked={defaultValues.includes(option.value)}
                className="mt-0.5 size-4 rounded border-slate-300 text-brand-700 focus:ring-brand-600"
              />
              <span className="text-sm font-medium text-slate-900">{option.label}</span>
            </label>
          );
        })}
      </div>
      {hint ? (
        <p id={wiring.hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      <p id={wiring.errorId} className="field-error">
        {errors?.[0] ?? ""}
      </p>
    </fieldset>
  );
}
