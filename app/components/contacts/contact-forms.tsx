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

import { SOURCE_LABELS } from "./labels";

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
      <CardHeader title="Details" />
      <Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate className="mt-4 space-y-1">
        <ContactIdentityFields formErrors={form.errors} fields={inputs} />
        {fields.map((field) => (
          <AttributeInput key={field.key} field={field} value={contact.attributes[field.key]} />
        ))}
        <SelectField
          label="Language for replies"
          errors={inputs.language.errors}
          {...getSelectProps(inputs.language)}
          key={inputs.language.key}
        >
          <option value="">Not known</option>
          <option value="en">English</option>
          <option value="sw">Swahili</option>
        </SelectField>
        <TextareaField label="Notes" rows={3} errors={inputs.notes.errors} {...getTextareaProps(inputs.notes)} key={inputs.notes.key} />
        <p className="text-sm">
          <TextLink to={href("/messaging/contacts/fields")}>Manage contact fields</TextLink>
        </p>
        <div className="flex justify-end pt-2">
          <Button type="submit" name="intent" value="save" pending={busy} pendingText="Saving...">
            Save contact
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
        <option value="">Not known</option>
        <option value="yes">Yes</option>
        <option value="no">No</option>
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
      <CardHeader
        title="Record consent"
        description="Each record is kept in the consent ledger; the latest decides whether marketing may go to them."
      />
      <Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate className="mt-4 space-y-1">
        <SelectField label="Status" errors={inputs.status.errors} {...getSelectProps(inputs.status)} key={inputs.status.key}>
          <option value="opted_in">Opted in</option>
          <option value="opted_out">Opted out</option>
        </SelectField>
        <SelectField label="Source" errors={inputs.source.errors} {...getSelectProps(inputs.source)} key={inputs.source.key}>
          {Object.entries(SOURCE_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </SelectField>
        <Field
          label="Evidence"
          markRequired
          hint="How they agreed or refused."
          errors={inputs.evidence.errors}
          {...getInputProps(inputs.evidence, { type: "text" })}
          key={inputs.evidence.key}
        />
        <div className="flex justify-end pt-2">
          <Button type="submit" name="intent" value="consent">
            Record consent
          </Button>
        </div>
      </Form>
    </Card>
  );
}
