import { Form, href } from "react-router";
import { Link } from "~/components/ui/link";
import { getFormProps, getInputProps } from "~/components/ui/form-state";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { Pencil } from "~/components/ui/icons";
import type { Route } from "./+types/profile";
import { OtpSchema, ProfileSchema } from "~/lib/schemas/auth";
import { joinOtpBoxes } from "~/lib/otp";
import { Field, FormError } from "~/components/ui/field";
import { Button, ButtonLink } from "~/components/ui/button";
import { OtpInput } from "~/components/ui/otp-input";
import { Toast } from "~/components/ui/toast";
import { formatDay, formatWhen } from "~/lib/dates";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { pendingCode } from "~/.server/domains/auth/codes";
import { listRecentActivity } from "~/.server/domains/activity/queries";
import { activityInWords } from "~/.server/domains/activity/words";
import { confirmEmailChange, mayRenameOrganisation, updateProfile } from "~/.server/domains/profile/update-profile";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card } from "~/components/ui/card";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { PageTitle } from "~/components/ui/page-title";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyProfileSchema = lazySchema(() => import("~/lib/schemas/auth"), "ProfileSchema");

// A settings form: sent as a document without React (decision 066); the server checks every field and app/assets/forms.js holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "account:manage", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.settings_profile_meta_title() }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const url = args.url;
  const [pending, activity] = await Promise.all([
    pendingCode(current.user.id, "email_change"),
    listRecentActivity(current.organization.id, { userId: current.user.id, limit: 8 }),
  ]);
  return {
    editing: url.searchParams.get("edit") === "1",
    // Agents and viewers see the organisation's name; owners and admins rename it.
    canRename: mayRenameOrganisation(current.role),
    profile: {
      businessName: current.organization.name,
      email: current.user.email,
      phoneNumber: current.user.phoneNumber ?? "",
      businessId: current.organization.businessId,
      whatsappNumber: current.organization.whatsappNumber ?? "",
      name: `${current.user.firstName} ${current.user.lastName}`,
      createdAt: current.user.createdAt.toISOString(),
    },
    pendingEmail: pending?.targetEmail ?? null,
    activity: activity.map((a) => activityInWords({ id: a.id, action: a.action, details: a.details, at: a.createdAt.toISOString() })),
  };
}

export async function action(args: Route.ActionArgs) {
  const meta = requestMeta(args.request, args.context);
  const path = args.url.pathname;
  return intentAction(args, {
    permission: "account:manage",
    intents: {
      "confirm-email": intent(
        OtpSchema,
        async ({ value, submission, user }) => {
          const outcome = await confirmEmailChange(user, value.otp, meta);
          if (!outcome.ok)
            return formFailure(submission.reply({ formErrors: [outcome.message], hideFields: ["otp"] }), outcome.status, outcome.message);
          return redirectWithToast(path, "success", outcome.message);
        },
        { prepare: joinOtpBoxes, invalid: (submission) => formFailure(submission.reply({ hideFields: ["otp"] })) },
      ),
      save: intent(
        ProfileSchema,
        async ({ value, submission, user }) => {
          const outcome = await updateProfile(user, value, meta);
          if (!outcome.ok) {
            const reply = outcome.field
              ? submission.reply({ fieldErrors: { [outcome.field]: [outcome.message] } })
              : submission.reply({ formErrors: [outcome.message] });
            return formFailure(reply, outcome.status, outcome.message, { form: "profile" });
          }
          return redirectWithToast(path, "success", outcome.message);
        },
        { invalid: (submission) => formFailure(submission.reply(), 400, undefined, { form: "profile" }) },
      ),
    },
    unknown: () => formFailure(null, 400, m.settings_unknown_action()),
  });
}

export default function Profile({ loaderData, actionData }: Route.ComponentProps) {
  const { profile, editing, pendingEmail, activity } = loaderData;
  const profileResult = actionData && "form" in actionData && actionData.form === "profile" ? actionData.result : undefined;
  const [form, fields] = useSchemaForm(lazyProfileSchema, profileResult, {
    id: "profile",
    defaultValue: { businessName: profile.businessName, email: profile.email, phoneNumber: profile.phoneNumber },
    shouldValidate: "onBlur",
  });
  // A failed save keeps the form open, with or without JavaScript.
  const showForm = editing || !!profileResult;

  return (
    <div className="mx-auto max-w-3xl space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div className="flex items-center justify-between">
        <div>
          <PageTitle>{m.settings_profile_title()}</PageTitle>
          <p className="text-slate-600">{m.settings_profile_member_since({ name: profile.name, date: formatDay(profile.createdAt) })}</p>
        </div>
        {showForm ? null : (
          <ButtonLink to="?edit=1" variant="secondary">
            <Pencil className="size-4" aria-hidden /> {m.settings_profile_edit()}
          </ButtonLink>
        )}
      </div>

      <Card padding="lg" aria-labelledby="business-info">
        <h2 id="business-info" className="font-semibold">
          {m.settings_profile_business_information()}
        </h2>
        {showForm ? (
          <Form method="post" {...getFormProps(form)} className="mt-4">
            <FormError id={form.errorId} errors={form.errors} />
            {loaderData.canRename ? (
              <Field
                label={m.settings_profile_business_name()}
                markRequired
                errors={fields.businessName.errors}
                {...getInputProps(fields.businessName, { type: "text" })}
                key={fields.businessName.key}
              />
            ) : (
              <div className="pb-4 text-sm">
                <input type="hidden" name="businessName" value={profile.businessName} />
                <p className="font-medium text-slate-700">{m.settings_profile_business_name()}</p>
                <p className="mt-1 text-slate-900">{profile.businessName}</p>
                <p className="mt-0.5 text-xs text-slate-500">{m.settings_profile_rename_note()}</p>
                {fields.businessName.errors ? <p className="mt-0.5 text-sm text-red-600">{fields.businessName.errors[0]}</p> : null}
              </div>
            )}
            <Field
              label={m.settings_profile_email()}
              markRequired
              hint={m.settings_profile_email_hint()}
              errors={fields.email.errors}
              {...getInputProps(fields.email, { type: "email" })}
              key={fields.email.key}
            />
            <Field
              label={m.settings_profile_phone()}
              placeholder="0712 345 678"
              errors={fields.phoneNumber.errors}
              {...getInputProps(fields.phoneNumber, { type: "tel" })}
              key={fields.phoneNumber.key}
            />
            <div className="flex gap-3">
              <Button type="submit" name="intent" value="save" pendingText={m.settings_saving()}>
                {m.settings_profile_save()}
              </Button>
              <ButtonLink to="." variant="secondary">
                {m.settings_cancel()}
              </ButtonLink>
            </div>
          </Form>
        ) : (
          <dl className="mt-4 grid gap-4 sm:grid-cols-2">
            <Item label={m.settings_profile_business_name()} value={profile.businessName} />
            <Item label={m.settings_profile_email()} value={profile.email} />
            <Item label={m.settings_profile_phone()} value={profile.phoneNumber || m.settings_profile_not_set()} />
          </dl>
        )}
      </Card>

      {pendingEmail ? <ConfirmEmail pendingEmail={pendingEmail} /> : null}

      <Card padding="lg" aria-labelledby="whatsapp-info">
        <h2 id="whatsapp-info" className="font-semibold">
          {m.settings_profile_whatsapp_information()}
        </h2>
        <dl className="mt-4 grid gap-4 sm:grid-cols-2">
          <Item label={m.settings_profile_business_id()} value={profile.businessId} />
          <Item label={m.settings_profile_whatsapp_number()} value={profile.whatsappNumber || m.settings_profile_not_connected()} />
        </dl>
        <p className="mt-3 text-xs text-slate-500">{m.settings_profile_read_only_note()}</p>
      </Card>

      <Card padding="lg" aria-labelledby="account-activity">
        <div className="flex items-center justify-between">
          <h2 id="account-activity" className="font-semibold">
            {m.settings_profile_account_activity()}
          </h2>
          <Link to={href("/change-password")} className="text-sm font-semibold text-brand-700 hover:underline">
            {m.settings_change_password_title()}
          </Link>
        </div>
        {activity.length ? (
          <ul className="mt-3 divide-y divide-slate-100">
            {activity.map((a) => (
              // On a phone the time goes under the event instead of pushing out of the card.
              <li key={a.id} className="flex flex-col gap-0.5 py-2 text-sm sm:flex-row sm:justify-between sm:gap-4">
                <span className="min-w-0 break-words">
                  <span className="font-medium text-slate-900">{a.action}</span>
                  {a.details ? <span className="block text-slate-500">{a.details}</span> : null}
                </span>
                <time dateTime={a.at} className="text-xs text-slate-500 sm:shrink-0 sm:text-right sm:text-sm" data-testid="activity-time">
                  {formatWhen(a.at)}
                </time>
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-3 text-sm text-slate-500">{m.settings_profile_no_activity()}</p>
        )}
      </Card>
    </div>
  );
}

function Item({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt className="text-sm text-slate-500">{label}</dt>
      <dd className="font-medium text-slate-900">{value}</dd>
    </div>
  );
}

function ConfirmEmail({ pendingEmail }: { pendingEmail: string }) {
  return (
    <section className="rounded-xl border border-amber-200 bg-amber-50 p-6" aria-labelledby="confirm-email">
      <h2 id="confirm-email" className="font-semibold">
        {m.settings_profile_confirm_email_title()}
      </h2>
      <p className="mt-1 text-sm text-slate-700">
        {m.settings_profile_confirm_email_before()} <strong>{pendingEmail}</strong>
        {m.settings_profile_confirm_email_after()}
      </p>
      <Form method="post" className="mt-4 max-w-sm">
        <OtpInput />
        <Button type="submit" name="intent" value="confirm-email" className="mt-4">
          {m.settings_profile_confirm_email_submit()}
        </Button>
      </Form>
    </section>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
