import { getInputProps, type FieldMetadata } from "~/components/ui/form-state";
import { Field } from "~/components/ui/field";
import { m } from "~/paraglide/messages";

type TextField = FieldMetadata<string | undefined>;

/**
 * The head of both contact forms (Add contact on the Contacts tab, Details on a contact's page):
 * the form's own error, then name, phone and tags, as Conform wires them to the shared schemas.
 */
export function ContactIdentityFields({
  formErrors,
  fields,
}: {
  formErrors?: string[];
  fields: { name: TextField; phone: TextField; tags: TextField };
}) {
  return (
    <>
      {formErrors?.length ? (
        <p role="alert" className="text-sm text-red-700">
          {formErrors[0]}
        </p>
      ) : null}
      <Field
        label={m.messaging_contact_field_name()}
        markRequired
        errors={fields.name.errors}
        {...getInputProps(fields.name, { type: "text" })}
        key={fields.name.key}
      />
      <Field
        label={m.messaging_contact_field_phone()}
        markRequired
        errors={fields.phone.errors}
        {...getInputProps(fields.phone, { type: "tel" })}
        key={fields.phone.key}
      />
      <Field
        label={m.messaging_contact_field_tags()}
        hint={m.messaging_contact_field_tags_hint()}
        errors={fields.tags.errors}
        {...getInputProps(fields.tags, { type: "text" })}
        key={fields.tags.key}
      />
    </>
  );
}
