import { useEffect, useState, type FormEvent } from "react";
import { Form, useNavigation } from "react-router";
import { Plus, Trash2 } from "~/components/ui/icons";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { CheckboxField, Field, FileField, FormError, SelectField, TextareaField } from "~/components/ui/field";
import { MessagePreview } from "./message-preview";
import { chosenFile, readTemplateForm, SAMPLE_FIELD } from "~/lib/template-form";
import {
  BUTTON_LABELS,
  BUTTON_TYPES,
  formatBytes,
  isMediaFormat,
  LIMITS,
  MEDIA_SAMPLES,
  placeholderCount,
  renderTemplate,
  sampleHint,
  TEMPLATE_CATEGORIES,
  TEMPLATE_LANGUAGES,
  templateProblems,
  type Problems,
  type TemplateInput,
} from "~/lib/templates";

export interface AccountChoice {
  id: string;
  label: string;
}

/**
 * The template form. Without JavaScript every control is a plain field and the row buttons
 * (add a button, remove one, "Update example fields") post back to the server, which answers with
 * the form as it was plus the change. With JavaScript the preview and the example fields follow
 * the typing, and the same checks as the server's run before anything is sent.
 */
export function TemplateForm({
  values,
  problems,
  accounts,
  accountId,
  locked,
}: {
  values: TemplateInput;
  problems: Problems;
  accounts: AccountChoice[];
  accountId?: string | null;
  /** Submitted templates keep their name, language and category at Meta. */
  locked?: boolean;
}) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  // "Submitting..." only while submitting: saving a draft or adding a row leaves it disabled, not relabelled.
  const submitting = busy && navigation.formData?.get("intent") === "submit";
  const [live, setLive] = useState<TemplateInput>(values);
  const [clientProblems, setClientProblems] = useState<Problems | null>(null);
  // A new answer from the server (values and problems) replaces what the browser had.
  const [seen, setSeen] = useState(values);
  if (seen !== values) {
    setSeen(values);
    setLive(values);
    setClientProblems(null);
  }
  const shown = clientProblems ?? problems;
  const err = (key: string) => (shown[key] ? [shown[key]!] : undefined);
  const auth = live.category === "AUTHENTICATION";
  const exampleCount = placeholderCount(live.body);
  // A file chosen in this browser previews from an object URL before anything is sent.
  const [localSample, setLocalSample] = useState<{ file: File; url: string } | null>(null);
  useEffect(() => () => (localSample ? URL.revokeObjectURL(localSample.url) : undefined), [localSample]);
  if (localSample && seen !== values) setLocalSample(null);
  const media = isMediaFormat(live.headerFormat) ? live.headerFormat : isMediaFormat(values.headerFormat) ? values.headerFormat : null;
  const kept = values.headerSample?.id ? values.headerSample : undefined;
  const previewed: TemplateInput =
    localSample && live.headerSample && !live.headerSample.id
      ? { ...live, headerSample: { ...live.headerSample, url: localSample.url } }
      : live;

  const onChange = (event: FormEvent<HTMLFormElement>) => {
    const form = new FormData(event.currentTarget);
    const next = readTemplateForm(form);
    setLive(next);
    const file = chosenFile(form);
    if (file !== localSample?.file)
      setLocalSample(file && file.type.startsWith("image/") ? { file, url: URL.createObjectURL(file) } : null);
    if (clientProblems) setClientProblems(templateProblems(next));
  };
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    const intent = submitter?.value ?? "";
    if (intent !== "draft" && intent !== "submit") return;
    const found = templateProblems(readTemplateForm(new FormData(event.currentTarget)));
    if (Object.keys(found).length) {
      event.preventDefault();
      setClientProblems(found);
    }
  };

  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <Form
        method="post"
        encType="multipart/form-data"
        noValidate
        onChange={onChange}
        onSubmit={onSubmit}
        className="space-y-4"
        aria-label="Template"
      >
        <FormError errors={shown.form ? [shown.form] : undefined} />
        <Card className="space-y-1">
          <Field
            label="Template name"
            name="name"
            defaultValue={values.name}
            errors={err("name")}
            markRequired
            readOnly={locked}
            hint="Lowercase letters, numbers and underscores, e.g. order_update."
            maxLength={LIMITS.name}
            autoComplete="off"
          />
          <div className="grid gap-3 sm:grid-cols-2">
            <SelectField
              label="Type"
              name="category"
              defaultValue={values.category}
              disabled={locked}
              options={TEMPLATE_CATEGORIES.map((c) => ({ value: c.value, label: c.label }))}
            />
            <SelectField
              label="Language"
              name="language"
              defaultValue={values.language}
              disabled={locked}
              options={TEMPLATE_LANGUAGES.map((l) => ({ value: l.value, label: l.label }))}
            />
          </div>
          {locked ? (
            <>
              <input type="hidden" name="category" value={values.category} />
              <input type="hidden" name="language" value={values.language} />
            </>
          ) : null}
          {accounts.length > 1 && !locked ? (
            <SelectField
              label="WhatsApp Business account"
              name="accountId"
              defaultValue={accountId ?? ""}
              errors={err("accountId")}
              markRequired
            >
              <option value="">Choose an account</option>
              {accounts.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.label}
                </option>
              ))}
            </SelectField>
          ) : null}
        </Card>

        {auth ? (
          <Card className="space-y-1">
            <h2 className="mb-2 font-semibold">Verification code message</h2>
            <p className="mb-3 text-sm text-slate-600">
              Meta writes the text of authentication templates: &ldquo;<em>123456</em> is your verification code.&rdquo;
            </p>
            <CheckboxField
              label="Add the security notice (For your security, do not share this code.)"
              name="addSecurityRecommendation"
              defaultChecked={values.addSecurityRecommendation}
            />
            <Field
              label="Code expires after (minutes, optional)"
              name="codeExpirationMinutes"
              type="number"
              inputMode="numeric"
              min={LIMITS.expiryMinutes.min}
              max={LIMITS.expiryMinutes.max}
              defaultValue={values.codeExpirationMinutes ?? ""}
              errors={err("codeExpirationMinutes")}
              className="mt-3"
            />
            <div className="grid gap-3 sm:grid-cols-2">
              <SelectField
                label="Button"
                name="otpType"
                defaultValue={values.otpType}
                options={[
                  { value: "COPY_CODE", label: "Copy code" },
                  { value: "ONE_TAP", label: "One-tap autofill (Android)" },
                ]}
              />
              <Field
                label="Button text"
                name="otpButtonText"
                defaultValue={values.otpButtonText ?? "Copy code"}
                errors={err("otpButtonText")}
                maxLength={LIMITS.buttonText}
              />
            </div>
            {live.otpType === "ONE_TAP" || values.otpType === "ONE_TAP" ? (
              <div className="grid gap-3 sm:grid-cols-2">
                <Field
                  label="Android package name"
                  name="packageName"
                  defaultValue={values.packageName ?? ""}
                  errors={err("packageName")}
                />
                <Field
                  label="App signing key hash"
                  name="signatureHash"
                  defaultValue={values.signatureHash ?? ""}
                  errors={err("signatureHash")}
                />
              </div>
            ) : null}
          </Card>
        ) : (
          <>
            <Card className="space-y-1">
              <h2 className="mb-2 font-semibold">Content</h2>
              <SelectField
                label="Header (optional)"
                name="headerFormat"
                defaultValue={values.headerFormat}
                options={[
                  { value: "NONE", label: "No header" },
                  { value: "TEXT", label: "Text" },
                  { value: "IMAGE", label: "Image" },
                  { value: "VIDEO", label: "Video" },
                  { value: "DOCUMENT", label: "Document (PDF)" },
                ]}
              />
              {media ? (
                <>
                  <FileField
                    label={`Sample ${MEDIA_SAMPLES[media].noun}`}
                    name={SAMPLE_FIELD}
                    accept={MEDIA_SAMPLES[media].accept}
                    errors={err("headerSample")}
                    markRequired={!kept}
                    hint={
                      kept
                        ? `Kept: ${kept.fileName} (${formatBytes(kept.size)}). Choose a file only to replace it. ${sampleHint(media)}`
                        : `Meta reviews the template with it. ${sampleHint(media)}`
                    }
                  />
                  {kept ? (
                    <>
                      <input type="hidden" name="headerSampleId" value={kept.id} />
                      <input type="hidden" name="headerSampleName" value={kept.fileName} />
                      <input type="hidden" name="headerSampleType" value={kept.contentType} />
                      <input type="hidden" name="headerSampleSize" value={kept.size} />
                      {kept.url ? <input type="hidden" name="headerSampleUrl" value={kept.url} /> : null}
                    </>
                  ) : null}
                </>
              ) : null}
              {live.headerFormat === "TEXT" || values.headerFormat === "TEXT" ? (
                <div className="grid gap-3 sm:grid-cols-2">
                  <Field
                    label="Header text"
                    name="headerText"
                    defaultValue={values.headerText ?? ""}
                    errors={err("headerText")}
                    maxLength={LIMITS.headerText}
                    hint="Up to 60 characters, one variable {{1}}."
                  />
                  {placeholderCount(live.headerText) ? (
                    <Field
                      label="Example for the header's {{1}}"
                      name="headerExample"
                      defaultValue={values.headerExample ?? ""}
                      errors={err("headerExample")}
                    />
                  ) : null}
                </div>
              ) : null}
              <TextareaField
                label="Body"
                name="body"
                defaultValue={values.body ?? ""}
                errors={err("body")}
                markRequired
                rows={6}
                maxLength={LIMITS.body}
                hint="Up to 1,024 characters. Variables are {{1}}, {{2}}... in order; *bold*, _italic_."
              />
              {exampleCount ? (
                <fieldset className="rounded-lg border border-slate-200 p-3">
                  <legend className="px-1 text-sm font-medium text-slate-700">Example values (Meta reviews the template with them)</legend>
                  <div className="grid gap-x-3 sm:grid-cols-2">
                    {Array.from({ length: exampleCount }, (_, i) => (
                      <Field
                        key={i}
                        label={`Example for {{${i + 1}}}`}
                        name="bodyExamples"
                        id={`bodyExamples-${i}`}
                        defaultValue={values.bodyExamples[i] ?? ""}
                        errors={err(`bodyExamples[${i}]`)}
                      />
                    ))}
                  </div>
                </fieldset>
              ) : (
                <Button type="submit" name="intent" value="refresh" variant="link" formNoValidate>
                  Update example fields
                </Button>
              )}
              <Field
                label="Footer (optional)"
                name="footer"
                defaultValue={values.footer ?? ""}
                errors={err("footer")}
                maxLength={LIMITS.footer}
                className="mt-2"
              />
            </Card>

            <Card className="space-y-3">
              <h2 className="font-semibold">Buttons (optional)</h2>
              <p className="text-sm text-slate-600">
                Up to 10: quick replies together, at most 2 website buttons, 1 phone number and 1 copy code.
              </p>
              <input type="hidden" name="buttonCount" value={values.buttons.length} />
              {shown.buttons ? (
                <p role="alert" className="text-sm text-red-600">
                  {shown.buttons}
                </p>
              ) : null}
              {values.buttons.map((button, i) => (
                <fieldset key={`${i}-${button.type}`} className="rounded-lg border border-slate-200 p-3">
                  <legend className="px-1 text-sm font-medium text-slate-700">
                    Button {i + 1}: {BUTTON_LABELS[button.type]}
                  </legend>
                  <input type="hidden" name={`buttons[${i}].type`} value={button.type} />
                  <div className="grid gap-x-3 sm:grid-cols-2">
                    {button.type !== "COPY_CODE" ? (
                      <Field
                        label="Button text"
                        name={`buttons[${i}].text`}
                        defaultValue={button.text}
                        errors={err(`buttons[${i}].text`)}
                        maxLength={LIMITS.buttonText}
                      />
                    ) : null}
                    {button.type === "URL" ? (
                      <>
                        <Field
                          label="Website address"
                          name={`buttons[${i}].url`}
                          type="url"
                          defaultValue={button.url ?? ""}
                          errors={err(`buttons[${i}].url`)}
                          hint="May end in {{1}}."
                        />
                        <Field
                          label="Example for the address's {{1}} (if any)"
                          name={`buttons[${i}].example`}
                          defaultValue={button.example ?? ""}
                          errors={err(`buttons[${i}].example`)}
                        />
                      </>
                    ) : null}
                    {button.type === "PHONE_NUMBER" ? (
                      <Field
                        label="Phone number"
                        name={`buttons[${i}].phone`}
                        type="tel"
                        defaultValue={button.phone ?? ""}
                        errors={err(`buttons[${i}].phone`)}
                        placeholder="+254711000001"
                      />
                    ) : null}
                    {button.type === "COPY_CODE" ? (
                      <Field
                        label="Example offer code"
                        name={`buttons[${i}].example`}
                        defaultValue={button.example ?? ""}
                        errors={err(`buttons[${i}].example`)}
                        maxLength={LIMITS.copyCode}
                      />
                    ) : null}
                  </div>
                  <Button type="submit" name="intent" value={`remove-button:${i}`} variant="ghost" size="sm" formNoValidate>
                    <Trash2 className="size-4" aria-hidden /> Remove button {i + 1}
                  </Button>
                </fieldset>
              ))}
              {values.buttons.length < LIMITS.buttons ? (
                <div className="flex flex-wrap gap-2">
                  {BUTTON_TYPES.map((type) => (
                    <Button
                      key={type}
                      type="submit"
                      name="intent"
                      value={`add-button:${type}`}
                      variant="secondary"
                      size="sm"
                      formNoValidate
                    >
                      <Plus className="size-4" aria-hidden /> {BUTTON_LABELS[type]}
                    </Button>
                  ))}
                </div>
              ) : null}
            </Card>
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
