import { getInputProps, type FieldMetadata } from "~/components/ui/form-state";
import { Field } from "./field";
import { m } from "~/paraglide/messages";

/** First and last name side by side on wider screens (sign-up, joining a team). */
export function PersonNameFields({
  firstName,
  lastName,
}: {
  firstName: FieldMetadata<string | undefined>;
  lastName: FieldMetadata<string | undefined>;
}) {
  return (
    <div className="grid gap-x-4 sm:grid-cols-2">
      <Field
        label={m.auth_first_name_label()}
        markRequired
        autoComplete="given-name"
        errors={firstName.errors}
        {...getInputProps(firstName, { type: "text" })}
        key={firstName.key}
      />
      <Field
        label={m.auth_last_name_label()}
        markRequired
        autoComplete="family-name"
        errors={lastName.errors}
        {...getInputProps(lastName, { type: "text" })}
        key={lastName.key}
      />
    </div>
  );
}
