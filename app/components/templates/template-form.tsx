import { useEffect, useState, type FormEvent } from "react";

import { Form, useNavigation } from "react-router";

import { getFormProps, type SubmissionResult } from "~/components/ui/form-state";

import { Button } from "~/components/ui/button";

import { FormError } from "~/components/ui/field";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";

import { MessagePreview } from "./message-preview";

import { AuthenticationFields } from "./authentication-fields";

import { TemplateButtonRows } from "./template-button-rows";

import { TemplateContentFields } from "./template-content-fields";

import { TemplateIdentityFields, type AccountChoice } from "./template-identity-fields";

import { chosenFile, readTemplateForm } from "~/lib/template-form";

import { SAVING_INTENTS } from "~/lib/schemas/templates-rules";
import { renderTemplate, type TemplateInput } from "~/lib/templates";

// Loaded when the form is first used (decision 061).
const lazyTemplateFormSchema = lazySchema(() => import("~/lib/schemas/templates"), "TemplateFormSchema");

export type { AccountChoice } from "./template-identity-fields";

/** Row changes and "Update example fields" go to the server as typed: only saving is checked first. */
const notSaving = (formData: FormData) => !(SAVING_INTENTS as readonly (string | null)[]).includes(formData.get("intent") as string | null);

/**
 * The template form. Without JavaScript every control is a plain field and the row buttons
 * (add a button, remove one, "Update example fields") post back to the server, which answers with
 * the form as it was plus the change. With JavaScript the preview and the example fields follow
 * the typing, and the same checks as the server's run before anything is sent.
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
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  // "Submitting..." only while submitting: saving a draft or adding a row leaves it disabled, not relabelled.
  const submitting = busy && navigation.formData?.get("intent") === "submit";
  const [form] = useSchemaForm(lazyTemplateFormSchema, lastResult, { id: "template", skipWhen: notSaving });
  const { live, previewed, onChange } = useLiveTemplate(values);
  const errors = (name: string) => form.allErrors[name];
  const parts = { values, live, errors };

  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <Form
        method="post"
        encType="multipart/form-data"
        {...getFormProps(form)}
        onChange={onChange}
        className="space-y-4"
        aria-label="Template"
      >
        <FormError errors={form.errors} />
        <TemplateIdentityFields values={values} errors={errors} accounts={accounts} accountId={accountId} locked={locked} />
        {live.category === "AUTHENTICATION" ? (
          <AuthenticationFields {...parts} />
        ) : (
          <>
            <TemplateContentFields {...parts} />
            <TemplateButtonRows values={values} errors={errors} />
          </>
        )}

        <div className="flex flex-wrap gap-3">
          <Button type="submit" name="intent" value="submit" pending={submitting} disabled={busy} pendingText="Submitting...">
            Submit for approval
          </Button>
          <Button type="submit" name="intent" value="draft" variant="secondary" disabled={busy}>
            Save draft
          </Button>
        </div>
      </Form>

      <aside aria-label="Preview" className="lg:sticky lg:top-4 lg:self-start">
        <h2 className="mb-2 text-sm font-semibold text-slate-700">Preview</h2>
        <MessagePreview message={renderTemplate(previewed)} />
      </aside>
    </div>
  );
}

/**
 * The template as typed, for the preview and the fields that depend on others (the example fields,
 * the header's). A new answer from the server (its values) replaces what the browser had; a file
 * chosen in this browser previews from an object URL before anything is sent.
 */
function useLiveTemplate(values: TemplateInput) {
  const [live, setLive] = useState<TemplateInput>(values);
  const [seen, setSeen] = useState(values);
  const [localSample, setLocalSample] = useState<{ file: File; url: string } | null>(null);
  useEffect(() => () => (localSample ? URL.revokeObjectURL(localSample.url) : undefined), [localSample]);
  if (seen !== values) {
    setSeen(values);
    setLive(values);
    if (localSample) setLocalSample(null);
  }
  const previewed: TemplateInput =
    localSample && live.headerSample && !live.headerSample.id
      ? { ...live, headerSample: { ...live.headerSample, url: localSample.url } }
      : live;
  const onChange = (event: FormEvent<HTMLFormElement>) => {
    const form = new FormData(event.currentTarget);
    setLive(readTemplateForm(form));
    const file = chosenFile(form);
    if (file !== localSample?.file)
      setLocalSample(file && file.type.startsWith("image/") ? { file, url: URL.createObjectURL(file) } : null);
  };
  return { live, previewed, onChange };
}
