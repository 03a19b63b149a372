import { Form, href } from "react-router";

import { getInputProps, getSelectProps, getTextareaProps } from "~/components/ui/form-state";

import type { AttributeDefinition } from "~/.server/domains/contacts/attributes";
import type { ContactView } from "~/.server/domains/contacts/views";
import { ContactIdentityFields } from "~/components/messaging/contact-fields";

import { Button } from "~/components/ui/button";

import { Card, CardHeader } from "~/components/ui/card";

import { Field, SelectField, TextareaField } from "~/components/ui/field";

import { TextLink } from "~/components/ui/text-link";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";

import { m } from "~/paraglide/messages";

import { sourceLabels } from "./labels";

// Loaded when the form is first used (decision 061).
const lazyConsentSchema = lazySchema(() => import("~/lib/schemas/contacts"), "ConsentSchema");
const lazyEditContactSchema = lazySchema(() => import("~/lib/schemas/contacts"), "EditContactSchema");

type LastResult = Parameters<typeof useSchemaForm>[1];

/** The contact's details and custom fields, checked in the browser with the server's own schema. */
export function EditContactCard({
  contact,
  fields,
  lastResult,
  busy = false,
}: {
  contact: ContactView;
  fields: AttributeDefinition[];
  lastResult: LastResult;
  /** A post on its way (a hydrated page); a page sent as a document has app/assets/forms.js hold the button. */
  busy?: boolean;
}) {
  const [form, inputs] = useSchemaForm(lazyEditContactSchema, lastResult, {
    id: "edit-contact",
    defaultValue: {
      name: contact.name,
      phone: contact.phone ?? "",
      tags: contact.tags.join(", "),
      language: contact.language ?? "",
      notes: contact.notes ?? "",
    },
  });
  return (
    <Card>
      <CardHeader title={m.messaging_contact_details_title()} />
      <Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate className="mt-4 space-y-1">
        <ContactIdentityFields formErrors={form.errors} fields={inputs} />
        {fields.map((field) => (
          <AttributeInput key={field.key} field={field} value={contact.attributes[field.key]} />
        ))}
        <SelectField
          label={m.messaging_contact_language_label()}
          errors={inputs.language.errors}
          {...getSelectProps(inputs.language)}
          key={inputs.language.key}
        >
          <option value="">{m.messaging_not_known()}</option>
          <option value="en">{m.messaging_contact_language_en()}</option>
          <option value="sw">{m.messaging_contact_language_sw()}</option>
        </SelectField>
        <TextareaField
          label={m.messaging_contact_notes_label()}
          rows={3}
          errors={inputs.notes.errors}
          {...getTextareaProps(inputs.notes)}
          key={inputs.notes.key}
        />
        <p className="text-sm">
          <TextLink to={href("/messaging/contacts/fields")}>{m.messaging_contact_manage_fields()}</TextLink>
        </p>
        <div className="flex justify-end pt-2">
          <Button type="submit" name="intent" value="save" pending={busy} pendingText={m.messaging_saving()}>
            {m.messaging_contact_save()}
          </Button>
        </div>
      </Form>
    </Card>
  );
}

/** One custom field's input, named `attr.<key>`: yes/no as a choice, the others as their input type. */
function AttributeInput({ field, value }: { field: AttributeDefinition; value: unknown }) {
  const name = `attr.${field.key}`;
  if (field.type === "boolean")
    return (
      <SelectField label={field.label} name={name} defaultValue={value === true ? "yes" : value === false ? "no" : ""}>
        <option value="">{m.messaging_not_known()}</option>
        <option value="yes">{m.messaging_yes()}</option>
        <option value="no">{m.messaging_no()}</option>
      </SelectField>
    );
  return (
    <Field
      label={field.label}
      name={name}
      type={field.type === "number" ? "number" : field.type === "date" ? "date" : "text"}
      step={field.type === "number" ? "any" : undefined}
      defaultValue={value === undefined ? "" : String(value)}
    />
  );
}

/** A new record in the consent ledger: status, source and evidence. */
export function ConsentCard({ lastResult }: { lastResult: LastResult }) {
  const [form, inputs] = useSchemaForm(lazyConsentSchema, lastResult, {
    id: "consent",
    defaultValue: { status: "opted_in", source: "form" },
  });
  return (
    <Card>
      <CardHeader title={m.messaging_consent_record_title()} description={m.messaging_consent_record_description()} />
      <Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate className="mt-4 space-y-1">
        <SelectField
          label={m.messaging_consent_status_label()}
          errors={inputs.status.errors}
          {...getSelectProps(inputs.status)}
          key={inputs.status.key}
        >
          <option value="opted_in">{m.messaging_optin_opted_in()}</option>
          <option value="opted_out">{m.messaging_optin_opted_out()}</option>
        </SelectField>
        <SelectField
          label={m.messaging_consent_source_label()}
          errors={inputs.source.errors}
          {...getSelectProps(inputs.source)}
          key={inputs.source.key}
        >
          {Object.entries(sourceLabels()).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </SelectField>
        <Field
          label={m.messaging_contact_evidence_label()}
          markRequired
          hint={m.messaging_consent_evidence_hint()}
          errors={inputs.evidence.errors}
          {...getInputProps(inputs.evidence, { type: "text" })}
          key={inputs.evidence.key}
        />
        <div className="flex justify-end pt-2">
          <Button type="submit" name="intent" value="consent">
            {m.messaging_consent_record_title()}
          </Button>
        </div>
      </Form>
    </Card>
  );
}
