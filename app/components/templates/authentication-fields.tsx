import { Card } from "~/components/ui/card";
import { CheckboxField, Field, SelectField } from "~/components/ui/field";
import { LIMITS } from "~/lib/templates";
import type { TemplatePartProps } from "./template-form-parts";

/** An authentication template's settings: Meta writes its text, Jumbe asks for the code's button. */
export function AuthenticationFields({ values, errors: err }: TemplatePartProps) {
  return (
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
      <div id="template-one-tap" data-live-region>
        {values.otpType === "ONE_TAP" ? (
          <div className="grid gap-3 sm:grid-cols-2">
            <Field label="Android package name" name="packageName" defaultValue={values.packageName ?? ""} errors={err("packageName")} />
            <Field
              label="App signing key hash"
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
