import { Form } from "react-router";

import { getInputProps, getSelectProps } from "~/components/ui/form-state";

import { ContactIdentityFields } from "~/components/messaging/contact-fields";

import { Button, ButtonLink } from "~/components/ui/button";

import { closeDialogHref, UrlDialog } from "~/components/ui/dialog";

import { Field, SelectField } from "~/components/ui/field";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";

// Loaded when the form is first used (decision 061).
const lazyAddContactSchema = lazySchema(() => import("~/lib/schemas/contacts"), "AddContactSchema");

/** "Add contact": the `?dialog=add` state, checked in the browser with the server's own schema. */
export function AddContactDialog({
  search,
  lastResult,
  busy,
}: {
  search: URLSearchParams;
  lastResult: Parameters<typeof useSchemaForm>[1];
  busy: boolean;
}) {
  const [form, fields] = useSchemaForm(lazyAddContactSchema, lastResult, { id: "add-contact" });
  return (
    <UrlDialog
      name="add"
      searchParams={search}
      title="Add contact"
      description="One contact per number: 0712 345 678 and +254 712 345 678 are the same person."
    >
      <Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate className="space-y-1">
        <ContactIdentityFields formErrors={form.errors} fields={fields} />
        <SelectField
          label="Consent to marketing messages"
          errors={fields.consent.errors}
          {...getSelectProps(fields.consent)}
          key={fields.consent.key}
        >
          <option value="">Not recorded</option>
          <option value="yes">Yes, they agreed</option>
          <option value="no">No, they refused</option>
        </SelectField>
        <Field
          label="Evidence"
          hint="How they agreed or refused: the form, the message, the conversation."
          errors={fields.evidence.errors}
          {...getInputProps(fields.evidence, { type: "text" })}
          key={fields.evidence.key}
        />
        <div className="flex justify-end gap-2 pt-2">
          <ButtonLink to={closeDialogHref(search)} variant="secondary" replace>
            Cancel
          </ButtonLink>
          <Button type="submit" name="intent" value="add" pending={busy} pendingText="Adding...">
            Add contact
          </Button>
        </div>
      </Form>
    </UrlDialog>
  );
}
