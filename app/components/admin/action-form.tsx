import type { ReactNode } from "react";
import { Form, type FormProps } from "react-router";
import { Button } from "~/components/ui/button";

/**
 * One of a console page's actions as its own POST form: a heading, what it does, its fields, and
 * the submit button carrying the `intent` (Manage Account's resubscribe, reconnect, disconnect).
 * `formProps` wires it to Conform (getFormProps) when the server sends its fields back.
 */
export function AdminActionForm({
  title,
  description,
  intent,
  submit,
  variant = "secondary",
  disabled,
  formProps,
  children,
}: {
  title: string;
  description?: ReactNode;
  intent: string;
  submit: string;
  variant?: "secondary" | "danger";
  disabled?: boolean;
  formProps?: Omit<FormProps, "method" | "className" | "children">;
  children?: ReactNode;
}) {
  return (
    <Form method="post" {...formProps} className="space-y-3">
      <h3 className="font-medium">{title}</h3>
      {description ? <p className="text-sm text-slate-600">{description}</p> : null}
      {children}
      <Button type="submit" name="intent" value={intent} variant={variant} disabled={disabled}>
        {submit}
      </Button>
    </Form>
  );
}
