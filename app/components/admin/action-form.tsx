import type { ReactNode } from "react";
import { Form } from "react-router";
import { Button } from "~/components/ui/button";

/**
 * One of a console page's actions as its own POST form: a heading, what it does, its fields, and
 * the submit button carrying the `intent` (Manage Account's resubscribe, reconnect, disconnect).
 */
export function AdminActionForm({
  title,
  description,
  intent,
  submit,
  variant = "secondary",
  disabled,
  children,
}: {
  title: string;
  description?: ReactNode;
  intent: string;
  submit: string;
  variant?: "secondary" | "danger";
  disabled?: boolean;
  children?: ReactNode;
}) {
  return (
    <Form method="post" className="space-y-3">
      <h3 className="font-medium">{title}</h3>
      {description ? <p className="text-sm text-slate-600">{description}</p> : null}
      {children}
      <Button type="submit" name="intent" value={intent} variant={variant} disabled={disabled}>
        {submit}
      </Button>
    </Form>
  );
}
