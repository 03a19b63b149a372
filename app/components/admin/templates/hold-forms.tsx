import { Form, href } from "react-router";
import { getFormProps, type SubmissionResult } from "~/components/ui/form-state";
import type { HeldOrganisation, OrganisationForHold } from "~/.server/domains/admin/templates/queries";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { Field, FormError, RadioGroupField } from "~/components/ui/field";
import { ShieldAlert } from "~/components/ui/icons";
import { Name } from "~/components/ui/name";
import { TextLink } from "~/components/ui/text-link";
import { useServerCheckedForm } from "~/components/ui/use-schema-form";
import { withoutBidiControls } from "~/lib/names";

/** Whether a button of the page's forms (by its intent) is the one being submitted. */
type Busy = (intent: string) => boolean;
type Reply = SubmissionResult<string[]> | null | undefined;

/** The organisation the list is filtered to: hold or release its submissions. */
export function OrganisationHoldCard({ organisation, busy }: { organisation: OrganisationForHold; busy: Busy }) {
  return (
    <Card aria-labelledby="org-hold">
      <CardHeader
        id="org-hold"
        title={<Name>{organisation.name}</Name>}
        description={
          organisation.templateReview
            ? "Its template submissions are held: Jumbe reviews each before it goes to Meta."
            : "Its template submissions go straight to Meta."
        }
      />
      <CardBody>
        <Form method="post" className="flex flex-wrap items-end gap-3">
          <input type="hidden" name="organisation" value={organisation.id} />
          <input type="hidden" name="back" value="org" />
          <Field label="Reason (for the audit log)" name="reason" maxLength={1000} className="min-w-64 flex-1" />
          {organisation.templateReview ? (
            <Button type="submit" name="intent" value="release" variant="secondary" pending={busy("release")}>
              Release: send straight to Meta
            </Button>
          ) : (
            <Button type="submit" name="intent" value="hold" pending={busy("hold")}>
              <ShieldAlert className="size-4" aria-hidden /> Hold submissions for review
            </Button>
          )}
        </Form>
      </CardBody>
    </Card>
  );
}

/** The platform setting that holds new organisations' submissions from their sign-up. */
export function NewOrganisationsCard({ holdNew, result, busy }: { holdNew: boolean; result: Reply; busy: Busy }) {
  return (
    <Card aria-labelledby="new-organisations">
      <CardHeader
        id="new-organisations"
        title="New organisations"
        description="A platform setting: when it is on, every organisation made by sign-up starts with its template submissions held for review. Organisations already signed up, and members joining by invitation, are not affected."
        actions={
          <span data-testid="hold-new-state">
            <Badge tone={holdNew ? "warning" : "success"}>{holdNew ? "Held for review" : "Straight to Meta"}</Badge>
          </span>
        }
      />
      <CardBody>
        <p className="mb-3 text-sm text-slate-700">
          {holdNew
            ? "New organisations' template submissions are held: Jumbe reviews each before it goes to Meta, until the organisation is released."
            : "New organisations' template submissions go straight to Meta."}
        </p>
        {/* Remounted when the setting changes, so the checked option follows it after a save. */}
        <NewOrganisationsForm key={String(holdNew)} holdNew={holdNew} result={result} busy={busy} />
      </CardBody>
    </Card>
  );
}

function NewOrganisationsForm({ holdNew, result, busy }: { holdNew: boolean; result: Reply; busy: Busy }) {
  const [form, fields] = useServerCheckedForm<{ hold: string; reason: string }>(result, { id: "hold-new-organisations" });
  return (
    <Form method="post" className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-start" {...getFormProps(form)} noValidate>
      <RadioGroupField
        legend="Hold new organisations' template submissions"
        name={fields.hold.name}
        defaultValue={holdNew ? "on" : "off"}
        errors={fields.hold.errors}
        options={[
          { value: "on", label: "On", description: "Held for Jumbe's review from their sign-up." },
          { value: "off", label: "Off", description: "Straight to Meta." },
        ]}
      />
      <Field
        label="Reason (for the audit log)"
        name={fields.reason.name}
        maxLength={1000}
        defaultValue={fields.reason.initialValue}
        key={fields.reason.key}
      />
      <Button type="submit" name="intent" value="new-organisations" className="sm:mt-6" pending={busy("new-organisations")}>
        Save setting
      </Button>
    </Form>
  );
}

/** The organisations held for review, each with Release, and the form that holds another. */
export function HeldOrganisationsCard({ held, result, busy }: { held: HeldOrganisation[]; result: Reply; busy: Busy }) {
  return (
    <Card aria-labelledby="held-organisations">
      <CardHeader
        id="held-organisations"
        title="Organisations held for review"
        description="New organisations can be held by an administrator. Jumbe holds an organisation itself when Meta flags or disables one of its templates, or rejects one as abusive or a scam."
      />
      <CardBody className="space-y-4">
        {held.length ? (
          <ul className="divide-y divide-slate-100">
            {held.map((o) => (
              <li key={o.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
                <span>
                  <TextLink to={`${href("/admin/templates")}?org=${o.id}`} weight="medium">
                    <Name>{o.name}</Name>
                  </TextLink>{" "}
                  <span className="text-slate-600">
                    {o.businessId} · {o.held} waiting
                  </span>
                </span>
                <Form method="post">
                  <input type="hidden" name="organisation" value={o.id} />
                  <Button type="submit" name="intent" value="release" size="sm" variant="secondary">
                    Release<span className="sr-only"> {withoutBidiControls(o.name)}</span>
                  </Button>
                </Form>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-600">No organisation is held: every submission goes straight to Meta.</p>
        )}
        <HoldOrganisationForm result={result} busy={busy} />
      </CardBody>
    </Card>
  );
}

function HoldOrganisationForm({ result, busy }: { result: Reply; busy: Busy }) {
  const [form, fields] = useServerCheckedForm<{ organisation: string; reason: string }>(result, { id: "hold-organisation" });
  return (
    <Form
      method="post"
      className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-start"
      aria-label="Hold an organisation"
      {...getFormProps(form)}
      noValidate
    >
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="Organisation to hold"
        name={fields.organisation.name}
        placeholder="JMB-... or owner@example.co.ke"
        hint="Its business ID or a member's e-mail."
        defaultValue={fields.organisation.initialValue}
        errors={fields.organisation.errors}
        key={fields.organisation.key}
        markRequired
      />
      <Field
        label="Reason (for the audit log)"
        name={fields.reason.name}
        maxLength={1000}
        defaultValue={fields.reason.initialValue}
        key={fields.reason.key}
      />
      <Button type="submit" name="intent" value="hold" className="sm:mt-6" pending={busy("hold")}>
        Hold submissions
      </Button>
    </Form>
  );
}
