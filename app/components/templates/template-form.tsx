import { Form } from "react-router";

import { getFormProps, type SubmissionResult } from "~/components/ui/form-state";

import { Button } from "~/components/ui/button";

import { FormError } from "~/components/ui/field";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";

import { MessagePreview } from "./message-preview";

import { AuthenticationFields } from "./authentication-fields";

import { TemplateButtonRows } from "./template-button-rows";

import { TemplateContentFields } from "./template-content-fields";

import { TemplateIdentityFields, type AccountChoice } from "./template-identity-fields";

import { renderTemplate, type TemplateInput } from "~/lib/templates";

import { m } from "~/paraglide/messages";

// Conform's state of the server's answer (its messages at their fields). The page never hydrates
// (decision 068), so the schema itself never loads in a browser: the server checks the form.
const lazyTemplateFormSchema = lazySchema(() => import("~/lib/schemas/templates"), "TemplateFormSchema");

export type { AccountChoice } from "./template-identity-fields";

/**
 * The template form, a document drawn by the server (decision 068). Without JavaScript every control
 * is a plain field and the row buttons (add a button, remove one, "Update example fields") post back
 * to the server, which answers with the form as it was plus the change. With JavaScript
 * (app/assets/live.js, `data-live-post`) the same answer follows the typing: the preview and the
 * example fields are redrawn by the server 250 ms after a pause, a new type redraws the form, and a
 * chosen image shows in the preview at once.
 */
export function TemplateForm({
  values,
  lastResult,
  accounts,
  accountId,
  locked,
}: {
  values: TemplateInput;
  lastResult: SubmissionResult<string[]> | null | undefined;
  accounts: AccountChoice[];
  accountId?: string | null;
  /** Submitted templates keep their name, language and category at Meta. */
  locked?: boolean;
}) {
  const [form] = useSchemaForm(lazyTemplateFormSchema, lastResult, { id: "template" });
  const errors = (name: string) => form.allErrors[name];
  const parts = { values, errors };

  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <Form
        method="post"
        encType="multipart/form-data"
        {...getFormProps(form)}
        className="space-y-4"
        aria-label={m.templates_form_label()}
        data-live-post="refresh"
      >
        <FormError errors={form.errors} />
        <TemplateIdentityFields values={values} errors={errors} accounts={accounts} accountId={accountId} locked={locked} />
        {values.category === "AUTHENTICATION" ? (
          <AuthenticationFields {...parts} />
        ) : (
          <>
            <TemplateContentFields {...parts} />
            <TemplateButtonRows values={values} errors={errors} />
          </>
        )}

        <div className="flex flex-wrap gap-3">
          <Button type="submit" name="intent" value="submit" pendingText={m.templates_form_submitting()}>
            {m.templates_form_submit()}
          </Button>
          <Button type="submit" name="intent" value="draft" variant="secondary">
            {m.templates_form_save_draft()}
          </Button>
        </div>
      </Form>

      <aside aria-label={m.templates_form_preview()} className="lg:sticky lg:top-4 lg:self-start">
        <h2 className="mb-2 text-sm font-semibold text-slate-700">{m.templates_form_preview()}</h2>
        <div id="template-preview" data-live-region>
          <MessagePreview message={renderTemplate(values)} chosenImage />
        </div>
      </aside>
    </div>
  );
}
