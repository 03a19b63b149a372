import { useEffect, useId, useState, type InputHTMLAttributes, type ReactNode } from "react";
import { Eye, EyeOff } from "lucide-react";

export interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: ReactNode;
  errors?: string[];
  hint?: ReactNode;
  markRequired?: boolean;
  trailing?: ReactNode;
}

// A field in error stays red while focused: the aria-invalid variants outrank the brand focus colours.
export const INVALID_FOCUS = "aria-invalid:border-red-500 aria-invalid:focus:border-red-600 aria-invalid:focus:ring-red-100";

const inputClass =
  `block w-full rounded-lg border border-slate-300 bg-white px-3 py-2.5 text-slate-900 shadow-sm placeholder:text-slate-400 focus:border-brand-600 focus:ring-2 focus:ring-brand-100 focus:outline-none disabled:bg-slate-100 ${INVALID_FOCUS}`;

/**
 * A labelled input whose error text is tied to it with aria-describedby. Required fields are
 * marked, not enforced by the browser, so the spec's own messages show with JavaScript off too.
 */
export function Field({ label, errors, hint, markRequired, trailing, id, className, ...input }: FieldProps) {
  const fallbackId = useId();
  const inputId = id ?? fallbackId;
  const errorId = `${inputId}-error`;
  const hintId = `${inputId}-hint`;
  const invalid = !!errors?.length;
  return (
    <div className={className}>
      <label htmlFor={inputId} className="mb-1 block text-sm font-medium text-slate-700">
        {label}
        {markRequired ? <span className="ml-0.5 text-red-600" aria-hidden>*</span> : null}
      </label>
      <div className="relative">
        <input
          id={inputId}
          aria-invalid={invalid || undefined}
          aria-required={markRequired || undefined}
          aria-describedby={[invalid ? errorId : null, hint ? hintId : null].filter(Boolean).join(" ") || undefined}
          className={`${inputClass} ${trailing ? "pr-11" : ""}`}
          {...input}
        />
        {trailing}
      </div>
      {hint ? <p id={hintId} className="mt-1 text-xs text-slate-500">{hint}</p> : null}
      <p id={errorId} className="min-h-5 pt-0.5 text-sm text-red-600">{errors?.[0] ?? ""}</p>
    </div>
  );
}

/** A password field with a show/hide toggle; the toggle appears once scripts run, since it needs them. */
export function PasswordField(props: Omit<FieldProps, "type" | "trailing">) {
  const [visible, setVisible] = useState(false);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const toggle = hydrated ? (
    <button
      type="button"
      onClick={() => setVisible((v) => !v)}
      className="absolute inset-y-0 right-0 flex w-11 items-center justify-center text-slate-500 hover:text-slate-800"
      aria-label={visible ? "Hide password" : "Show password"}
      aria-pressed={visible}
    >
      {visible ? <EyeOff className="size-5" aria-hidden /> : <Eye className="size-5" aria-hidden />}
    </button>
  ) : null;
  return <Field {...props} type={visible ? "text" : "password"} trailing={toggle} />;
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
