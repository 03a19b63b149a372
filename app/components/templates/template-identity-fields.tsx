import { Card } from "~/components/ui/card";
import { Button } from "~/components/ui/button";
import { Field, SelectField } from "~/components/ui/field";
import { LIMITS, TEMPLATE_CATEGORIES, TEMPLATE_LANGUAGES, type TemplateInput } from "~/lib/templates";
import type { FieldErrors } from "./template-form-parts";
import { m } from "~/paraglide/messages";

export interface AccountChoice {
  id: string;
  label: string;
}

/** The template's name, type, language and account (a submitted template keeps the first three). */
export function TemplateIdentityFields({
  values,
  errors: err,
  accounts,
  accountId,
  locked,
}: {
  values: TemplateInput;
  errors: FieldErrors;
  accounts: AccountChoice[];
  accountId?: string | null;
  locked?: boolean;
}) {
  return (
    <>
      <Card className="space-y-1">
        <Field
          label={m.templates_name_label()}
          name="name"
          defaultValue={values.name}
          errors={err("name")}
          markRequired
          readOnly={locked}
          hint={m.templates_name_hint()}
          maxLength={LIMITS.name}
          autoComplete="off"
        />
        <div className="grid gap-3 sm:grid-cols-2">
          <SelectField
            label={m.templates_column_type()}
            name="category"
            defaultValue={values.category}
            disabled={locked}
            data-live-submit="AUTHENTICATION"
            options={TEMPLATE_CATEGORIES.map((c) => ({ value: c.value, label: c.label }))}
          />
          <SelectField
            label={m.templates_column_language()}
            name="language"
            defaultValue={values.language}
            disabled={locked}
            options={TEMPLATE_LANGUAGES.map((l) => ({ value: l.value, label: l.label }))}
          />
        </div>
        {locked ? null : (
          // Without JavaScript a new type's fields come with the form posted back; with it the type's
          // select presses this button itself (app/assets/live.js, data-live-submit).
          <Button type="submit" name="intent" value="refresh" variant="link" formNoValidate data-live-fallback>
            {m.templates_show_type_fields()}
          </Button>
        )}
        {locked ? (
          <>
            <input type="hidden" name="category" value={values.category} />
            <input type="hidden" name="language" value={values.language} />
          </>
        ) : null}
        {accounts.length > 1 && !locked ? (
          <SelectField
            label={m.templates_account_label()}
            name="accountId"
            defaultValue={accountId ?? ""}
            errors={err("accountId")}
            markRequired
          >
            <option value="">{m.templates_account_choose()}</option>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.label}
              </option>
            ))}
          </SelectField>
        ) : null}
      </Card>
    </>
  );
}
