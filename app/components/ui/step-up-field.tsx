import { PasswordField } from "~/components/ui/field";
import { m } from "~/paraglide/messages";

/**
 * A destructive admin action's confirmation (decision 037): shown inside the action's own form when
 * the administrator last proved who they are over 10 minutes ago, so one submit both confirms and
 * acts, with or without JavaScript. The server checks it whatever the page showed. The field's name
 * is STEP_UP_FIELD (app/.server/domains/admin/step-up.ts).
 */
export function StepUpField({ needed, error, id }: { needed: boolean; error?: string | null; id?: string }) {
  if (!needed && !error) return null;
  return (
    <div className="rounded-lg border border-amber-200 bg-amber-50 p-3">
      <PasswordField
        id={id}
        name="confirmation"
        label={m.auth_step_up_label()}
        hint={m.auth_step_up_hint()}
        autoComplete="current-password"
        errors={error ? [error] : undefined}
        markRequired
      />
    </div>
  );
}
