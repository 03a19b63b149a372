import { Form } from "react-router";
import { Search } from "./icons";

const BOX = {
  /** In a top bar: small, on grey. */
  bar: {
    icon: "text-slate-400",
    input: "w-full rounded-lg border border-slate-200 bg-slate-50 py-2 pr-3 pl-9 text-sm focus:border-brand-600 focus:outline-none",
  },
  /** A search page's own box: full size, on white. */
  page: {
    icon: "text-slate-500",
    input:
      "w-full rounded-lg border border-slate-300 bg-white py-2.5 pr-3 pl-9 focus:border-brand-600 focus:ring-2 focus:ring-brand-100 focus:outline-none",
  },
} as const;

/**
 * A search box: a GET form (role=search) sending `q` to `action`, with a magnifier, a label for
 * screen readers only, and the reason a query was refused tied to it (`messageId`).
 */
export function SearchBox({
  action,
  id,
  label,
  defaultValue,
  placeholder,
  maxLength,
  messageId,
  variant = "page",
  className = "",
}: {
  action: string;
  id: string;
  label: string;
  defaultValue?: string;
  placeholder: string;
  maxLength?: number;
  /** The id of the refusal's text, when the query was refused. */
  messageId?: string;
  variant?: keyof typeof BOX;
  className?: string;
}) {
  const look = BOX[variant];
  return (
    <Form method="get" action={action} role="search" className={`relative ${className}`.trim()}>
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <Search className={`pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 ${look.icon}`} aria-hidden />
      <input
        id={id}
        name="q"
        type="search"
        defaultValue={defaultValue}
        maxLength={maxLength}
        placeholder={placeholder}
        aria-describedby={messageId}
        aria-invalid={messageId ? true : undefined}
        className={look.input}
      />
    </Form>
  );
}
