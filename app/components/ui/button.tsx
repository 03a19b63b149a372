import type { ButtonHTMLAttributes, ReactNode } from "react";
import { Link, type LinkProps } from "~/components/ui/link";
import { LoaderCircle } from "~/components/ui/icons";

// Their looks are the kit's classes in app/app.css (.btn, .btn-<size>, .btn-<variant>).
export type ButtonVariant = "primary" | "secondary" | "danger" | "ghost" | "link";
export type ButtonSize = "sm" | "md" | "lg";

/** The classes of a button of this variant and size: for the rare element that is neither a button nor a link. */
export function buttonClass(variant: ButtonVariant = "primary", size: ButtonSize = "md", extra = "") {
  return `btn ${variant === "link" ? "" : `btn-${size} `}btn-${variant} ${extra}`.trim();
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
