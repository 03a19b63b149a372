import { Plus, Trash2 } from "~/components/ui/icons";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { BUTTON_LABELS, BUTTON_TYPES, LIMITS, isProductButton, type TemplateInput } from "~/lib/templates";
import type { FieldErrors } from "./template-form-parts";
import { m } from "~/paraglide/messages";

/**
 * The template's buttons, one row each. Adding and removing rows are posts (they work without
 * JavaScript): the server answers with the form as it was plus the change.
 */
export function TemplateButtonRows({ values, errors: err }: { values: TemplateInput; errors: FieldErrors }) {
  const problem = err("buttons");
  return (
    <Card className="space-y-3">
      <h2 className="font-semibold">{m.templates_buttons_heading()}</h2>
      <p className="text-sm text-slate-600">{m.templates_buttons_rules()}</p>
      <input type="hidden" name="buttonCount" value={values.buttons.length} />
      {problem ? (
        <p role="alert" className="text-sm text-red-600">
          {problem[0]}
        </p>
      ) : null}
      {values.buttons.map((button, i) => (
        <fieldset key={`${i}-${button.type}`} className="rounded-lg border border-slate-200 p-3">
          <legend className="px-1 text-sm font-medium text-slate-700">
            {m.templates_button_legend({ number: i + 1, kind: BUTTON_LABELS[button.type] })}
          </legend>
          <input type="hidden" name={`buttons[${i}].type`} value={button.type} />
          <div className="grid gap-x-3 sm:grid-cols-2">
            {isProductButton(button.type) ? (
              <p className="text-sm text-slate-600 sm:col-span-2">{m.templates_button_product_hint()}</p>
            ) : null}
            {button.type !== "COPY_CODE" && !isProductButton(button.type) ? (
              <Field
                label={m.templates_button_text()}
                name={`buttons[${i}].text`}
                defaultValue={button.text}
                errors={err(`buttons[${i}].text`)}
                maxLength={LIMITS.buttonText}
              />
            ) : null}
            {button.type === "URL" ? (
              <>
                <Field
                  label={m.templates_button_website()}
                  name={`buttons[${i}].url`}
                  type="url"
                  defaultValue={button.url ?? ""}
                  errors={err(`buttons[${i}].url`)}
                  hint={m.templates_button_website_hint({ variable: "{{1}}" })}
                />
                <Field
                  label={m.templates_button_website_example({ variable: "{{1}}" })}
                  name={`buttons[${i}].example`}
                  defaultValue={button.example ?? ""}
                  errors={err(`buttons[${i}].example`)}
                />
              </>
            ) : null}
            {button.type === "PHONE_NUMBER" ? (
              <Field
                label={m.templates_button_phone_number()}
                name={`buttons[${i}].phone`}
                type="tel"
                defaultValue={button.phone ?? ""}
                errors={err(`buttons[${i}].phone`)}
                placeholder="+254711000001"
              />
            ) : null}
            {button.type === "COPY_CODE" ? (
              <Field
                label={m.templates_button_offer_code()}
                name={`buttons[${i}].example`}
                defaultValue={button.example ?? ""}
                errors={err(`buttons[${i}].example`)}
                maxLength={LIMITS.copyCode}
              />
            ) : null}
          </div>
          <Button type="submit" name="intent" value={`remove-button:${i}`} variant="ghost" size="sm" formNoValidate>
            <Trash2 className="size-4" aria-hidden /> {m.templates_button_remove({ number: i + 1 })}
          </Button>
        </fieldset>
      ))}
      {values.buttons.length < LIMITS.buttons ? (
        <div className="flex flex-wrap gap-2">
          {BUTTON_TYPES.map((type) => (
            <Button key={type} type="submit" name="intent" value={`add-button:${type}`} variant="secondary" size="sm" formNoValidate>
              <Plus className="size-4" aria-hidden /> {BUTTON_LABELS[type]}
            </Button>
          ))}
        </div>
      ) : null}
    </Card>
  );
}
