import { useId, type ReactNode } from "react";
import { Form } from "react-router";
import { Button, ButtonLink } from "./button";
import { m } from "~/paraglide/messages";

/**
 * An inline "are you sure?" for an action that cannot be undone: a page state of its own (a
 * `?confirm=` URL), so it works without JavaScript. It posts `intent` with `confirm=yes` (and
 * `fields`, hidden: what the action is about); Cancel goes back to `cancelTo`.
 */
export function ConfirmPanel({
  title,
  children,
  intent,
  confirmLabel,
  cancelTo,
  busy,
  fields = {},
}: {
  title: string;
  children: ReactNode;
  intent: string;
  confirmLabel: string;
  cancelTo: string;
  busy?: boolean;
  fields?: Record<string, string>;
}) {
  const titleId = useId();
  return (
    <Form method="post" className="mt-4 rounded-lg border border-red-200 bg-red-50 p-4" role="alertdialog" aria-labelledby={titleId}>
      <p id={titleId} className="font-semibold text-red-900">
        {title}
      </p>
      <div className="mt-1 text-sm text-red-900">{children}</div>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="confirm" value="yes" />
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <div className="mt-3 flex gap-2">
        <Button type="submit" variant="danger" disabled={busy}>
          {confirmLabel}
        </Button>
        <ButtonLink to={cancelTo} variant="secondary">
          {m.app_ui_cancel()}
        </ButtonLink>
      </div>
    </Form>
  );
}
