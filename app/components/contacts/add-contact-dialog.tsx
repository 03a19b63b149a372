import { Form } from "react-router";

import { getInputProps, getSelectProps } from "~/components/ui/form-state";

import { ContactIdentityFields } from "~/components/messaging/contact-fields";

import { Button, ButtonLink } from "~/components/ui/button";

import { closeDialogHref, UrlDialog } from "~/components/ui/dialog";

import { Field, SelectField } from "~/components/ui/field";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";

import { m } from "~/paraglide/messages";

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
    <UrlDialog name="add" searchParams={search} title={m.messaging_contacts_add()} description={m.messaging_contacts_add_description()}>
      <Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate className="space-y-1">
        <ContactIdentityFields formErrors={form.errors} fields={fields} />
        <SelectField
          label={m.messaging_contacts_add_consent_label()}
          errors={fields.consent.errors}
          {...getSelectProps(fields.consent)}
          key={fields.consent.key}
        >
          <option value="">{m.messaging_contacts_add_consent_unrecorded()}</option>
          <option value="yes">{m.messaging_contacts_add_consent_yes()}</option>
          <option value="no">{m.messaging_contacts_add_consent_no()}</option>
        </SelectField>
        <Field
          label={m.messaging_contact_evidence_label()}
          hint={m.messaging_contacts_add_evidence_hint()}
          errors={fields.evidence.errors}
          {...getInputProps(fields.evidence, { type: "text" })}
          key={fields.evidence.key}
        />
        <div className="flex justify-end gap-2 pt-2">
          <ButtonLink to={closeDialogHref(search)} variant="secondary" replace>
            {m.messaging_cancel()}
          </ButtonLink>
          <Button type="submit" name="intent" value="add" pending={busy} pendingText={m.messaging_adding()}>
            {m.messaging_contacts_add()}
          </Button>
        </div>
      </Form>
    </UrlDialog>
  );
}
