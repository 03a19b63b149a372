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
import { m } from "~/paraglide/messages";
import { formatNumber } from "~/lib/dates";

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
        description={organisation.templateReview ? m.admin_hold_org_held() : m.admin_hold_org_straight()}
      />
      <CardBody>
        <Form method="post" className="flex flex-wrap items-end gap-3">
          <input type="hidden" name="organisation" value={organisation.id} />
          <input type="hidden" name="back" value="org" />
          <Field label={m.admin_audit_reason_label()} name="reason" maxLength={1000} className="min-w-64 flex-1" />
          {organisation.templateReview ? (
            <Button type="submit" name="intent" value="release" variant="secondary" pending={busy("release")}>
              {m.admin_template_release()}
            </Button>
          ) : (
            <Button type="submit" name="intent" value="hold" pending={busy("hold")}>
              <ShieldAlert className="size-4" aria-hidden /> {m.admin_template_hold()}
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
        title={m.admin_overview_growth_value()}
        description={m.admin_hold_new_intro()}
        actions={
          <span data-testid="hold-new-state">
            <Badge tone={holdNew ? "warning" : "success"}>
              {holdNew ? m.admin_hold_new_held_badge() : m.admin_hold_new_straight_badge()}
            </Badge>
          </span>
        }
      />
      <CardBody>
        <p className="mb-3 text-sm text-slate-700">{holdNew ? m.admin_hold_new_held_text() : m.admin_hold_new_straight_text()}</p>
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
        legend={m.admin_hold_new_legend()}
        name={fields.hold.name}
        defaultValue={holdNew ? "on" : "off"}
        errors={fields.hold.errors}
        options={[
          { value: "on", label: m.admin_hold_new_on(), description: m.admin_hold_new_on_description() },
          { value: "off", label: m.admin_hold_new_off(), description: m.admin_hold_new_off_description() },
        ]}
      />
      <Field
        label={m.admin_audit_reason_label()}
        name={fields.reason.name}
        maxLength={1000}
        defaultValue={fields.reason.initialValue}
        key={fields.reason.key}
      />
      <Button type="submit" name="intent" value="new-organisations" className="sm:mt-6" pending={busy("new-organisations")}>
        {m.admin_hold_new_save()}
      </Button>
    </Form>
  );
}

/** The organisations held for review, each with Release, and the form that holds another. */
export function HeldOrganisationsCard({ held, result, busy }: { held: HeldOrganisation[]; result: Reply; busy: Busy }) {
  return (
    <Card aria-labelledby="held-organisations">
      <CardHeader id="held-organisations" title={m.admin_hold_held_title()} description={m.admin_hold_held_intro()} />
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
                    {o.businessId} · {m.admin_hold_waiting({ count: formatNumber(o.held) })}
                  </span>
                </span>
                <Form method="post">
                  <input type="hidden" name="organisation" value={o.id} />
                  <Button type="submit" name="intent" value="release" size="sm" variant="secondary">
                    {m.admin_hold_release()}
                    <span className="sr-only"> {withoutBidiControls(o.name)}</span>
                  </Button>
                </Form>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-600">{m.admin_hold_none()}</p>
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
      aria-label={m.admin_hold_form()}
      {...getFormProps(form)}
      noValidate
    >
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label={m.admin_hold_organisation()}
        name={fields.organisation.name}
        placeholder={m.admin_hold_organisation_placeholder()}
        hint={m.admin_hold_organisation_hint()}
        defaultValue={fields.organisation.initialValue}
        errors={fields.organisation.errors}
        key={fields.organisation.key}
        markRequired
      />
      <Field
        label={m.admin_audit_reason_label()}
        name={fields.reason.name}
        maxLength={1000}
        defaultValue={fields.reason.initialValue}
        key={fields.reason.key}
      />
      <Button type="submit" name="intent" value="hold" className="sm:mt-6" pending={busy("hold")}>
        {m.admin_hold_submit()}
      </Button>
    </Form>
  );
}
