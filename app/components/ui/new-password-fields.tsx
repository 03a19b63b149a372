import { getInputProps, type FieldMetadata } from "~/components/ui/form-state";
import { PasswordField } from "./field";
import { StrengthMeter } from "./strength-meter";
import { m } from "~/paraglide/messages";

/** New password with the strength meter, then its confirmation (change and reset password). */
export function NewPasswordFields({
  newPassword,
  confirmPassword,
  confirmLabel,
}: {
  newPassword: FieldMetadata<string | undefined>;
  confirmPassword: FieldMetadata<string | undefined>;
  confirmLabel: string;
}) {
  return (
    <>
      <PasswordField
        label={m.auth_new_password_label()}
        markRequired
        autoComplete="new-password"
        errors={newPassword.errors}
        {...getInputProps(newPassword, { type: "password" })}
        key={newPassword.key}
      />
      <StrengthMeter inputId={newPassword.id} />
      <PasswordField
        label={confirmLabel}
        markRequired
        autoComplete="new-password"
        errors={confirmPassword.errors}
        {...getInputProps(confirmPassword, { type: "password" })}
        key={confirmPassword.key}
      />
    </>
  );
}
