import { Card } from "~/components/ui/card";
import { CheckboxField, Field, SelectField } from "~/components/ui/field";
import { LIMITS } from "~/lib/templates";
import type { TemplatePartProps } from "./template-form-parts";
import { m } from "~/paraglide/messages";

/** An authentication template's settings: Meta writes its text, Jumbe asks for the code's button. */
export function AuthenticationFields({ values, errors: err }: TemplatePartProps) {
  return (
    <Card className="space-y-1">
      <h2 className="mb-2 font-semibold">{m.templates_auth_heading()}</h2>
      <p className="mb-3 text-sm text-slate-600">
        {m.templates_auth_meta_writes_before()}
        <em>123456</em>
        {m.templates_auth_meta_writes_after()}
      </p>
      <CheckboxField
        label={m.templates_auth_security_notice()}
        name="addSecurityRecommendation"
        defaultChecked={values.addSecurityRecommendation}
      />
      <Field
        label={m.templates_auth_expiry()}
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
          label={m.templates_auth_button()}
          name="otpType"
          defaultValue={values.otpType}
          options={[
            { value: "COPY_CODE", label: m.templates_auth_copy_code() },
            { value: "ONE_TAP", label: m.templates_auth_one_tap() },
          ]}
        />
        <Field
          label={m.templates_button_text()}
          name="otpButtonText"
          defaultValue={values.otpButtonText ?? "Copy code"}
          errors={err("otpButtonText")}
          maxLength={LIMITS.buttonText}
        />
      </div>
      <div id="template-one-tap" data-live-region>
        {values.otpType === "ONE_TAP" ? (
          <div className="grid gap-3 sm:grid-cols-2">
            <Field
              label={m.templates_auth_package_name()}
              name="packageName"
              defaultValue={values.packageName ?? ""}
              errors={err("packageName")}
            />
            <Field
              label={m.templates_auth_signature_hash()}
              name="signatureHash"
              defaultValue={values.signatureHash ?? ""}
              errors={err("signatureHash")}
            />
          </div>
        ) : null}
      </div>
    </Card>
  );
}
