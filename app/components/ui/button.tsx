import type { ButtonHTMLAttributes, ReactNode } from "react";
import { Link, type LinkProps } from "react-router";
import { LoaderCircle } from "~/components/ui/icons";

const VARIANTS = {
  // brand-700 under white text: 5.5:1 contrast (brand-600 is 3.8:1, under WCAG AA's 4.5:1).
  primary: "bg-brand-700 text-white shadow-sm hover:bg-brand-900 disabled:bg-brand-700/60",
  secondary: "border border-slate-300 bg-white text-slate-800 shadow-sm hover:bg-slate-50 disabled:text-slate-400",
  danger: "bg-red-600 text-white shadow-sm hover:bg-red-700 disabled:bg-red-600/60",
  ghost: "text-slate-700 hover:bg-slate-100 disabled:text-slate-400",
  link: "text-brand-700 underline-offset-2 hover:underline disabled:text-slate-400",
} as const;

const SIZES = {
  sm: "px-3 py-1.5 text-xs",
  md: "px-4 py-2.5 text-sm",
  lg: "px-5 py-3 text-base",
} as const;

export type ButtonVariant = keyof typeof VARIANTS;
export type ButtonSize = keyof typeof SIZES;

/** The classes of a button of this variant and size: for the rare element that is neither a button nor a link. */
export function buttonClass(variant: ButtonVariant = "primary", size: ButtonSize = "md", extra = "") {
  const box = variant === "link" ? "p-0 text-sm" : SIZES[size];
  return `inline-flex items-center justify-center gap-2 rounded-lg font-semibold transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700 disabled:cursor-not-allowed ${box} ${VARIANTS[variant]} ${extra}`.trim();
}

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** A submission in flight: disabled, marked busy for screen readers, with a spinner. */
  pending?: boolean;
  /** What the button says while pending ("Saving..."); its own text otherwise. */
  pendingText?: ReactNode;
}

/** A button. Type "submit" by default, as inside a form without JavaScript. */
export function Button({
  variant = "primary",
  size = "md",
  pending = false,
  pendingText,
  className = "",
  disabled,
  children,
  ...props
}: ButtonProps) {
  return (
    <button
      className={buttonClass(variant, size, className)}
      disabled={disabled || pending}
      aria-busy={pending || undefined}
      // On a page without React, app/assets/forms.js says it while the form is on its way.
      data-pending-text={typeof pendingText === "string" ? pendingText : undefined}
      {...props}
    >
      {pending ? <LoaderCircle className="size-4 animate-spin" aria-hidden /> : null}
      {pending && pendingText ? pendingText : children}
    </button>
  );
}

/** A link that looks like a button: navigation (a GET) never needs a form. */
export function ButtonLink({
  variant = "primary",
  size = "md",
  className = "",
  ...props
}: LinkProps & { variant?: ButtonVariant; size?: ButtonSize }) {
  return <Link className={buttonClass(variant, size, className)} {...props} />;
}
