import { data, Form, href, redirect } from "react-router";
import { getFormProps, getInputProps } from "~/components/ui/form-state";
import type { Route } from "./+types/signup";
import { SignupSchema } from "~/lib/schemas/auth";
import { AuthShell, MarketingPanel } from "~/components/layout/auth-shell";
import { Field, FormError, FormSuccess, PasswordField } from "~/components/ui/field";
import { Button } from "~/components/ui/button";
import { PersonNameFields } from "~/components/ui/person-name-fields";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { HoneypotInputs } from "~/components/ui/honeypot";
import { Toast } from "~/components/ui/toast";
import { currentUser, homeFor } from "~/.server/domains/auth/guards";
import { createSignup, signupSuccess } from "~/.server/domains/auth/signup";
import { referralAttribution, referralCode } from "~/.server/domains/revenue-share/referral";
import { signedCookies } from "~/.server/infrastructure/http/cookies";
import { honeypotInputProps } from "~/.server/infrastructure/http/honeypot";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { publicFormAction } from "~/.server/infrastructure/http/intents";
import { AuthErrorBoundary } from "~/components/layout/auth-error";
import { TextLink } from "~/components/ui/text-link";
import { documentPage, loadAsDocument } from "~/components/layout/document-page";
import { PASSWORD_MIN } from "~/lib/schemas/auth-rules";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazySignupSchema = lazySchema(() => import("~/lib/schemas/auth"), "SignupSchema");

// Spec section 9: the success message shows for 1.8 s before the verify page.
const REDIRECT_DELAY_MS = 1800;

// Plain HTML in the browser, no React (decision 060).
export const handle = documentPage;
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [
  { title: m.auth_signup_meta_title() },
  { name: "description", content: m.auth_signup_meta_description() },
];

export async function loader(args: Route.LoaderArgs) {
  const current = await currentUser(args);
  if (current) throw redirect(homeFor(current.role));
  // A partner's referral link (`?ref=CODE`) rides in a hidden field to the post, scripts or not.
  return { honeypot: await honeypotInputProps(), referral: referralCode(new URL(args.request.url).searchParams.get("ref")) };
}

const hide = ["password", "confirmPassword"];

export async function action(args: Route.ActionArgs) {
  return publicFormAction(args, {
    schema: SignupSchema,
    spam: (submission) => {
      const failed = m.auth_signup_failed();
      return formFailure(submission.reply({ formErrors: [failed], hideFields: hide }), 400, failed);
    },
    invalid: (submission) => formFailure(submission.reply({ hideFields: hide }), 400, submission.reply().error?.[""]?.[0]),
    handle: async ({ value: v, submission, form }) => {
      const outcome = await createSignup(
        {
          firstName: v.firstName!,
          lastName: v.lastName!,
          businessName: v.businessName,
          email: v.email!,
          phoneNumber: v.phoneNumber,
          password: v.password!,
          withOrganisation: referralAttribution(form.get("ref")),
        },
        requestMeta(args.request, args.context),
      );
      if (!outcome.ok) {
        const reply = outcome.field
          ? submission.reply({ fieldErrors: { [outcome.field]: [outcome.message] }, hideFields: hide })
          : submission.reply({ formErrors: [outcome.message], hideFields: hide });
        return formFailure(reply, outcome.status, outcome.message);
      }
      return data(
        { result: submission.reply({ resetForm: true }), toast: null, success: signupSuccess() },
        { headers: { "Set-Cookie": await signedCookies().otpEmail.serialize(outcome.email) } },
      );
    },
  });
}

export default function Signup({ loaderData, actionData }: Route.ComponentProps) {
  const success = actionData && "success" in actionData ? String(actionData.success) : null;
  const [form, fields] = useSchemaForm(lazySignupSchema, actionData?.result);

  return (
    <AuthShell title={m.auth_signup_title()} subtitle={m.auth_signup_subtitle()} aside={<MarketingPanel />}>
      {success ? (
        <>
          {/* The browser follows this after the pause, with or without scripts. */}
          <meta httpEquiv="refresh" content={`${REDIRECT_DELAY_MS / 1000};url=/verify-otp`} />
          <Toast toast={{ type: "success", message: success }} />
          <FormSuccess message={success} />
          {/* The code's e-mail is queued (decision 100): the next page can ask for another. */}
          <p className="text-sm text-slate-600">{m.auth_signup_code_on_its_way()}</p>
          <p className="text-sm text-slate-600">
            {m.auth_signup_taking_you_to()}{" "}
            <TextLink to={href("/verify-otp")} weight="semibold">
              {m.auth_verify_title()}
            </TextLink>
            …
          </p>
        </>
      ) : (
        <>
          {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
          <Form method="post" {...getFormProps(form)}>
            <FormError id={form.errorId} errors={form.errors} />
            <HoneypotInputs honeypot={loaderData.honeypot} />
            {loaderData.referral ? <input type="hidden" name="ref" value={loaderData.referral} /> : null}
            <PersonNameFields firstName={fields.firstName} lastName={fields.lastName} />
            <Field
              label={m.auth_signup_business_name()}
              autoComplete="organization"
              errors={fields.businessName.errors}
              {...getInputProps(fields.businessName, { type: "text" })}
              key={fields.businessName.key}
            />
            <Field
              label={m.auth_email_label()}
              markRequired
              autoComplete="email"
              errors={fields.email.errors}
              {...getInputProps(fields.email, { type: "email" })}
              key={fields.email.key}
            />
            <Field
              label={m.auth_signup_phone()}
              autoComplete="tel"
              placeholder="0712 345 678"
              errors={fields.phoneNumber.errors}
              {...getInputProps(fields.phoneNumber, { type: "tel" })}
              key={fields.phoneNumber.key}
            />
            <PasswordField
              label={m.auth_password_label()}
              markRequired
              autoComplete="new-password"
              hint={m.auth_signup_password_hint({ min: PASSWORD_MIN })}
              errors={fields.password.errors}
              {...getInputProps(fields.password, { type: "password" })}
              key={fields.password.key}
            />
            <PasswordField
              label={m.auth_confirm_password_label()}
              markRequired
              autoComplete="new-password"
              errors={fields.confirmPassword.errors}
              {...getInputProps(fields.confirmPassword, { type: "password" })}
              key={fields.confirmPassword.key}
            />
            <label className="flex items-start gap-2 text-sm text-slate-700">
              {/* Ticked again when a refused post comes back (the names and e-mail are kept the same way). */}
              <input
                {...getInputProps(fields.agreedToTerms, { type: "checkbox", value: "on" })}
                key={fields.agreedToTerms.key}
                aria-describedby={fields.agreedToTerms.errorId}
                className="mt-0.5 size-4 rounded border-slate-300 accent-brand-600"
              />
              <span>
                {m.auth_signup_agree_before()}{" "}
                <TextLink to={href("/terms")} weight="medium">
                  {m.auth_terms_of_service()}
                </TextLink>{" "}
                {m.auth_signup_agree_and()}{" "}
                <TextLink to={href("/privacy")} weight="medium">
                  {m.auth_privacy_policy()}
                </TextLink>
              </span>
            </label>
            <p id={fields.agreedToTerms.errorId} className="min-h-5 pt-0.5 text-sm text-red-600">
              {fields.agreedToTerms.errors?.[0] ?? ""}
            </p>
            <Button type="submit" className="mt-2 w-full" data-pending-text={m.auth_signup_pending()}>
              {m.auth_signup_submit()}
            </Button>
          </Form>
          <p className="mt-6 text-center text-sm text-slate-600">
            {m.auth_signup_have_account()}{" "}
            <TextLink to={href("/login")} weight="semibold" underline="hover">
              {m.auth_sign_in_link()}
            </TextLink>
          </p>
        </>
      )}
    </AuthShell>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <AuthErrorBoundary />;
}
