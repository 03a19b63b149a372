import { useEffect, useState } from "react";
import { data, Form, href, Link, redirect, useNavigation } from "react-router";
import { CalendarClock, Send, Save } from "~/components/ui/icons";
import type { Route } from "./+types/new";
import { can, requireUserWithPermission } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { readForm } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import {
  checkCampaign,
  confirmCampaign,
  estimateCampaign,
  walletAvailableCents,
  type CampaignInput,
} from "~/.server/domains/campaigns/lifecycle";
import { previewMessages } from "~/.server/domains/campaigns/preview";
import { overThreshold } from "~/.server/domains/campaigns/approval-request";
import { audienceLabel } from "~/.server/domains/campaigns/queries";
import { LEFT_OUT_WORDS } from "~/.server/domains/campaigns/failure-words";
import { campaignFormChoices, type TemplateChoice } from "~/.server/domains/campaigns/page-data";
import {
  emptyCampaignForm,
  FIXED,
  headerFileOf,
  LIST_MAX,
  numbersIn,
  readCampaignForm,
  sourceOf,
  splitTagList,
  templateOfKey,
  UPLOAD_MAX_BYTES,
  type CampaignFormValues,
} from "~/lib/campaign-form";
import { formatNumber, formatWhen, zonedInstant, zoneWords } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BackLink } from "~/components/ui/back-link";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { CheckboxField, Field, FileField, FormError, SelectField, TextareaField } from "~/components/ui/field";
import { MessagePreviewList, SummaryList } from "~/components/ui/summary";
import { Notice } from "~/components/ui/notice";
import { refusalOf } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";

// Campaigns and quick broadcasts: seen by everyone who sees the Message Center, made by those who manage them.
export const handle: PermissionHandle = { permission: "campaigns:manage" };

type Kind = "campaign" | "broadcast";
const MEDIA_HEADERS = ["IMAGE", "VIDEO", "DOCUMENT"];
const kindOf = (url: URL): Kind => (url.pathname.startsWith("/messaging/broadcasts") ? "broadcast" : "campaign");

export const meta: Route.MetaFunction = ({ location }) => [
  { title: `${location.pathname.startsWith("/messaging/broadcasts") ? "Quick Broadcast" : "New Campaign"} | Message Center | Jumbe` },
];

/**
 * /messaging/campaigns/new and /messaging/broadcasts/new: the spec's New Campaign modal as a page
 * (and Quick Broadcast: a template to an audience, now). Every step posts the whole form, so it works
 * without JavaScript: choosing a template shows its placeholders (at once with JavaScript), Review
 * counts the audience, prices it and previews the first real messages, then Confirm, Save as draft or Back.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "campaigns:manage");
  const choices = await campaignFormChoices(current.organization.id);
  const wanted = args.url.searchParams.get("template");
  return { kind: kindOf(args.url), choices, template: choices.templates.some((t) => t.key === wanted) ? wanted : null };
}

type Errors = Partial<Record<"name" | "from" | "template" | "parameters" | "audience" | "scheduledFor" | "form", string>>;
const FIELDS = new Set(["name", "from", "template", "parameters", "audience", "scheduledFor"]);

export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "campaigns:manage");
  if (!can(current.role, "campaigns:manage")) throw redirect("/unauthorized");
  const kind = kindOf(args.url);
  const organizationId = current.organization.id;
  const form = await readForm(args.request);
  const intent = String(form.get("intent") ?? "");
  const values = readCampaignForm(form);
  const edit = (errors: Errors = {}, status = 200) => data({ step: "edit" as const, values, errors, review: null }, { status });
  if (intent === "choose" || intent === "back") return edit();
  if (!["review", "confirm", "draft"].includes(intent)) throw data("Unknown action.", { status: 400 });

  // An uploaded list joins the pasted one (and is carried as text from here on).
  const file = form.get("file");
  if (file && typeof file !== "string" && file.size > 0) {
    if (file.size > UPLOAD_MAX_BYTES)
      return edit(
        {
          audience: `The file is larger than ${formatNumber(UPLOAD_MAX_BYTES / 1_000_000)} MB: upload at most ${formatNumber(LIST_MAX)} numbers.`,
        },
        422,
      );
    const uploaded = numbersIn(await file.text(), { file: true });
    if (!uploaded.length)
      return edit({ audience: "The file holds no phone numbers: one number a line, or a CSV with a phone column." }, 422);
    values.phones = [...numbersIn(values.phones), ...uploaded].join(", ");
  }
  const choices = await campaignFormChoices(organizationId);
  const built = inputOf(
    values,
    kind,
    choices.templates.find((t) => t.key === values.template),
  );
  if ("errors" in built) return edit(built.errors, 422);
  const input = built.input;
  const actor = { organizationId, userId: current.user.id, meta: requestMeta(args.request, args.context) };
  try {
    if (intent === "review") {
      const checked = await checkCampaign(organizationId, input);
      const [estimate, preview] = await Promise.all([
        estimateCampaign(organizationId, checked),
        previewMessages(organizationId, checked, 3),
      ]);
      const availableCents = await walletAvailableCents(organizationId, estimate);
      const segment = choices.segments.find((s) => s.id === checked.audience.segmentId);
      return data({
        step: "review" as const,
        values,
        errors: {} as Errors,
        review: {
          name: checked.name,
          from: checked.sender.number,
          template: `${checked.template.name} (${checked.template.language}, ${checked.template.category})`,
          audience: audienceLabel(checked.audience, segment?.name ?? null),
          when: checked.scheduledFor ? formatWhen(checked.scheduledFor) : null,
          recipients: estimate.recipients,
          total: estimate.total,
          leftOut: Object.entries(estimate.leftOut).map(([reason, count]) => ({
            reason,
            words: LEFT_OUT_WORDS[reason] ?? reason,
            count: count ?? 0,
          })),
          costCents: estimate.estimatedCostCents,
          perMessageCents: Math.round(estimate.perMessageKes * 100),
          // Prepaid, and the estimate is more than the wallet can pay now: what it can pay (the review warns).
          walletAvailableCents:
            availableCents !== null && estimate.estimatedCostCents > availableCents ? Math.max(0, availableCents) : null,
          includedLeft: estimate.includedLeft,
          preview,
          // Broadcast approval: confirming puts it to approval rather than sending it.
          approvalThreshold: overThreshold(current.organization.approvalThreshold, estimate.recipients)
            ? current.organization.approvalThreshold
            : null,
        },
      });
    }
    const { id, status } = await confirmCampaign(actor, { ...input, draft: intent === "draft" });
    const what = kind === "broadcast" ? "Broadcast" : "Campaign";
    const message =
      intent === "draft"
        ? `${what} saved as a draft.`
        : status === "awaiting_approval"
          ? `${what} waiting for approval: it reaches more people than your organisation's approval threshold, so an owner or admin other than you must approve it before anything is sent.`
          : input.scheduledFor
            ? `${what} scheduled for ${formatWhen(input.scheduledFor)}.`
            : `${what} started: sending now.`;
    return redirectWithToast(href("/messaging/campaigns/:id", { id }), "success", message);
  } catch (error) {
    const refusal = refusalOf(error);
    const field = refusal.field && FIELDS.has(refusal.field) ? refusal.field : "form";
    return edit({ [field]: refusal.message }, refusal.status === 404 ? 422 : refusal.status);
  }
}

/** The domain's input from the form, or the errors the form can tell by itself. */
function inputOf(
  values: CampaignFormValues,
  kind: Kind,
  template: TemplateChoice | undefined,
): { input: CampaignInput } | { errors: Errors } {
  const errors: Errors = {};
  if (!values.template) errors.template = "Choose an approved template.";
  const phones = numbersIn(values.phones);
  if (phones.length > LIST_MAX)
    errors.audience = `A list holds at most ${formatNumber(LIST_MAX)} numbers; this one has ${formatNumber(phones.length)}.`;
  let scheduledFor: Date | null = null;
  if (kind === "campaign" && values.when === "later") {
    scheduledFor = zonedInstant(values.date, values.time) ?? null;
    if (!scheduledFor) errors.scheduledFor = `Give the date and the time (${zoneWords()}) to send it.`;
  }
  if (Object.keys(errors).length) return { errors };
  const name = values.name.trim() || (kind === "broadcast" && template ? `Quick broadcast: ${template.name}`.slice(0, 80) : values.name);
  return {
    input: {
      name,
      kind,
      from: values.from || undefined,
      template: templateOfKey(values.template),
      parameters: parametersOf(values, template),
      audience: {
        ...(values.segment ? { segmentId: values.segment } : {}),
        ...(splitTagList(values.tags).length ? { tags: splitTagList(values.tags) } : {}),
        ...(phones.length ? { phones } : {}),
        ...(values.everyone ? { everyone: true } : {}),
      },
      scheduledFor,
    },
  };
}

const EMPTY = { source: "", fallback: "", value: "" };

/** The template's values from the form: the body's, a text header's, a media header's file, the buttons'. */
function parametersOf(values: CampaignFormValues, template: TemplateChoice | undefined): CampaignInput["parameters"] {
  const body = Array.from({ length: template?.bodyCount ?? 0 }, (_, i) => sourceOf(values.body[i] ?? EMPTY));
  const headerMedia = MEDIA_HEADERS.includes(template?.headerFormat ?? "") ? headerFileOf(values.headerFile) : undefined;
  const buttons = (template?.buttons ?? []).map((button) => ({
    index: button.index,
    source: sourceOf(values.buttons.find((b) => b.index === button.index) ?? EMPTY),
  }));
  return {
    body,
    ...(template?.headerTakesText ? { header: sourceOf(values.header) } : {}),
    ...(headerMedia ? { headerMedia } : {}),
    ...(buttons.length ? { buttons } : {}),
  };
}

export default function NewCampaign({ loaderData, actionData }: Route.ComponentProps) {
  const { kind, choices, template } = loaderData;
  const values = actionData?.values ?? { ...emptyCampaignForm(), template: template ?? "" };
  const title = kind === "broadcast" ? "Quick Broadcast" : "New Campaign";
  const back = kind === "broadcast" ? href("/messaging/broadcasts") : href("/messaging");
  return (
    <div className="space-y-6">
      <div>
        <BackLink to={back}>{kind === "broadcast" ? "Broadcast History" : "Campaigns"}</BackLink>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">{actionData?.step === "review" ? `Review: ${title}` : title}</h1>
        <p className="text-slate-600">
          {kind === "broadcast"
            ? "One approved template to an audience, sent now."
            : "One approved template to an audience, now or at a time you choose."}
        </p>
      </div>
      {actionData?.step === "review" && actionData.review ? (
        <Review kind={kind} values={values} review={actionData.review} />
      ) : (
        <CampaignForm kind={kind} choices={choices} values={values} errors={actionData?.errors ?? {}} cancelTo={back} />
      )}
    </div>
  );
}

type Choices = Route.ComponentProps["loaderData"]["choices"];

function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

function CampaignForm({
  kind,
  choices,
  values,
  errors,
  cancelTo,
}: {
  kind: Kind;
  choices: Choices;
  values: CampaignFormValues;
  errors: Errors;
  cancelTo: string;
}) {
  const hydrated = useHydrated();
  const navigation = useNavigation();
  const [templateKey, setTemplateKey] = useState(values.template);
  const [when, setWhen] = useState(values.when);
  const chosen = choices.templates.find((t) => t.key === templateKey);
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "review";
  const byName = new Map<string, TemplateChoice[]>();
  for (const t of choices.templates) byName.set(t.name, [...(byName.get(t.name) ?? []), t]);

  return (
    <Form
      method="post"
      encType="multipart/form-data"
      noValidate
      className="space-y-6"
      aria-label={kind === "broadcast" ? "Quick Broadcast" : "New Campaign"}
    >
      <FormError errors={errors.form ? [errors.form] : null} />
      <Card>
        <CardHeader title="Message" />
        <div className="mt-4 grid gap-x-4 sm:grid-cols-2">
          <Field
            label={kind === "broadcast" ? "Name (optional)" : "Campaign name"}
            name="name"
            defaultValue={values.name}
            maxLength={80}
            markRequired={kind === "campaign"}
            errors={errors.name ? [errors.name] : undefined}
            placeholder={kind === "broadcast" ? "Quick broadcast: the template's name" : "e.g. December dividend notice"}
          />
          {choices.senders.length ? (
            <SelectField
              label="Send from"
              name="from"
              defaultValue={values.from || choices.senders[0]?.phoneNumberId}
              errors={errors.from ? [errors.from] : undefined}
              options={choices.senders.map((s) => ({ value: s.phoneNumberId, label: s.name ? `${s.number} (${s.name})` : s.number }))}
            />
          ) : (
            <div>
              <p className="mb-1 block text-sm font-medium text-slate-700">Send from</p>
              <p className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2.5 text-sm text-amber-900" id="from-error">
                {errors.from ?? "No WhatsApp number is connected."}{" "}
                <Link to={href("/whatsapp")} className="font-semibold underline">
                  Connect one
                </Link>
              </p>
            </div>
          )}
        </div>
        {choices.templates.length ? (
          <div className="flex flex-wrap items-end gap-3">
            <SelectField
              label="Approved template"
              name="template"
              className="min-w-64 flex-1"
              markRequired
              value={templateKey}
              onChange={(event) => setTemplateKey(event.currentTarget.value)}
              errors={errors.template ? [errors.template] : undefined}
            >
              <option value="">Choose a template</option>
              {[...byName].map(([name, list]) => (
                <optgroup key={name} label={name}>
                  {list.map((t) => (
                    <option key={t.key} value={t.key}>
                      {t.name} ({t.language}, {t.category})
                    </option>
                  ))}
                </optgroup>
              ))}
            </SelectField>
            {hydrated ? null : (
              <div className="pb-6">
                <Button type="submit" name="intent" value="choose" variant="secondary">
                  Show its placeholders
                </Button>
              </div>
            )}
          </div>
        ) : (
          <p className="mt-4 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2.5 text-sm text-amber-900" id="template-error">
            {errors.template ?? "You have no approved templates yet."}{" "}
            <Link to={href("/templates/new")} className="font-semibold underline">
              Create a template
            </Link>{" "}
            and wait for Meta&apos;s approval.
          </p>
        )}
        {chosen ? <Placeholders template={chosen} choices={choices} values={values} error={errors.parameters} /> : null}
        {!chosen && errors.parameters ? <FormError errors={[errors.parameters]} /> : null}
      </Card>

      <Card>
        <fieldset aria-describedby={errors.audience ? "audience-error" : undefined}>
          <legend className="font-semibold text-slate-900">Audience</legend>
          <p className="mt-0.5 text-sm text-slate-600">
            Any mix: everyone they name gets it once. Marketing goes only to people who opted in.
          </p>
          {errors.audience ? (
            <p id="audience-error" role="alert" className="mt-3 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-700">
              {errors.audience}
            </p>
          ) : null}
          <div className="mt-4 grid gap-x-4 sm:grid-cols-2">
            <SelectField
              label="Segment"
              name="segment"
              defaultValue={values.segment}
              options={[{ value: "", label: "No segment" }, ...choices.segments.map((s) => ({ value: s.id, label: s.name }))]}
            />
            <Field
              label="Tags"
              name="tags"
              defaultValue={values.tags}
              placeholder="e.g. nakuru, vip"
              hint={
                choices.tags.length ? `Yours: ${choices.tags.slice(0, 12).join(", ")}${choices.tags.length > 12 ? "…" : ""}` : undefined
              }
            />
          </div>
          <CheckboxField label="Everyone who opted in" name="everyone" defaultChecked={values.everyone} className="mb-4" />
          <div className="grid gap-x-4 sm:grid-cols-2">
            <TextareaField
              label="Phone numbers"
              name="phones"
              defaultValue={values.phones}
              hint="Pasted: one a line, or separated by commas (0712 345 678 or +254 712 345 678)."
            />
            <FileField
              label="Or upload a list"
              name="file"
              accept=".csv,.txt,text/csv,text/plain"
              hint={`A CSV or text file of up to ${formatNumber(LIST_MAX)} numbers.`}
            />
          </div>
        </fieldset>
      </Card>

      {kind === "campaign" ? (
        <Card>
          <fieldset>
            <legend className="font-semibold text-slate-900">When</legend>
            <div className="mt-3 flex flex-wrap gap-6 text-sm">
              <label className="flex items-center gap-2">
                <input type="radio" name="when" value="now" checked={when === "now"} onChange={() => setWhen("now")} /> Send now
              </label>
              <label className="flex items-center gap-2">
                <input type="radio" name="when" value="later" checked={when === "later"} onChange={() => setWhen("later")} /> Schedule
              </label>
            </div>
            <div className="mt-4 grid gap-x-4 sm:grid-cols-2">
              <Field
                label="Date"
                type="date"
                name="date"
                defaultValue={values.date}
                errors={errors.scheduledFor ? [errors.scheduledFor] : undefined}
                hint={`${zoneWords()}, your organisation's time zone. Used when Schedule is chosen.`}
              />
              <Field label="Time" type="time" name="time" defaultValue={values.time} />
            </div>
          </fieldset>
        </Card>
      ) : null}

      <div className="flex justify-end gap-2">
        <ButtonLink to={cancelTo} variant="secondary">
          Cancel
        </ButtonLink>
        <Button type="submit" name="intent" value="review" pending={busy} pendingText="Counting the audience...">
          Review
        </Button>
      </div>
    </Form>
  );
}

function Placeholders({
  template,
  choices,
  values,
  error,
}: {
  template: TemplateChoice;
  choices: Choices;
  values: CampaignFormValues;
  error?: string;
}) {
  const options = [
    { value: "", label: "Choose a field or a fixed value" },
    ...choices.fields.map((f) => ({ value: f.key, label: f.label })),
    { value: FIXED, label: "A fixed value" },
  ];
  const same = values.template === template.key;
  const row = (prefix: string, label: string, v: CampaignFormValues["body"][number] | undefined) => (
    <div key={prefix} className="grid gap-x-4 sm:grid-cols-3">
      <SelectField label={label} name={`${prefix}_source`} defaultValue={v?.source ?? ""} options={options} />
      <Field label="Fallback" name={`${prefix}_fallback`} defaultValue={v?.fallback ?? ""} hint="When the field is empty." />
      <Field label="Fixed value" name={`${prefix}_value`} defaultValue={v?.value ?? ""} hint="For everyone, with A fixed value." />
    </div>
  );
  return (
    <fieldset className="mt-2 rounded-lg border border-slate-200 p-4" aria-describedby={error ? "parameters-error" : undefined}>
      <legend className="px-1 text-sm font-semibold text-slate-900">Placeholders</legend>
      <p className="mb-3 text-sm whitespace-pre-line text-slate-700">
        {template.header ? <strong className="block">{template.header}</strong> : null}
        {MEDIA_HEADERS.includes(template.headerFormat ?? "") ? (
          <strong className="block">[{template.headerFormat!.toLowerCase()} header]</strong>
        ) : null}
        {template.body}
      </p>
      {error ? (
        <p id="parameters-error" role="alert" className="mb-3 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-700">
          {error}
        </p>
      ) : null}
      {MEDIA_HEADERS.includes(template.headerFormat ?? "") ? (
        <HeaderFile template={template} media={choices.media} values={same ? values.headerFile : undefined} />
      ) : null}
      {template.headerTakesText ? row("h", "Header {{1}}", values.header) : null}
      {Array.from({ length: template.bodyCount }, (_, i) =>
        row(`p${i + 1}`, `{{${template.named[i] ?? i + 1}}}`, same ? values.body[i] : undefined),
      )}
      {template.buttons.map((button) => (
        <div key={button.index}>
          <p className="mb-1 text-sm text-slate-700">
            {button.kind === "url" ? (
              <>
                Button <strong>{button.text}</strong> opens <span className="break-all">{button.url}</span>: the end of its link for each
                person.
              </>
            ) : (
              <>
                Button <strong>{button.text}</strong> copies a code for each person (at most 15 characters).
              </>
            )}
          </p>
          {row(`b${button.index}`, `Button: ${button.text}`, same ? values.buttons.find((b) => b.index === button.index) : undefined)}
        </div>
      ))}
      {!template.headerTakesText && template.bodyCount === 0 && !template.buttons.length ? (
        <p className="text-sm text-slate-600">This template has no placeholders.</p>
      ) : null}
    </fieldset>
  );
}

const KIND_WORDS: Record<string, string> = { IMAGE: "image", VIDEO: "video", DOCUMENT: "document" };

/** A media header's file, the same for everyone: an https link, or one of the tenant's uploads of that kind. */
function HeaderFile({
  template,
  media,
  values,
}: {
  template: TemplateChoice;
  media: Choices["media"];
  values: CampaignFormValues["headerFile"] | undefined;
}) {
  const kind = KIND_WORDS[template.headerFormat ?? ""] ?? "file";
  const uploads = media.filter((m) => m.kind === kind);
  return (
    <div className="mb-4 grid gap-x-4 sm:grid-cols-2">
      <Field
        label={`Header ${kind}: link`}
        name="hm_link"
        type="url"
        inputMode="url"
        defaultValue={values?.link ?? ""}
        placeholder="https://"
        hint={`The ${kind}'s https address, sent to everyone. WhatsApp fetches it from there.`}
      />
      {uploads.length ? (
        <SelectField
          label={`Or an uploaded ${kind}`}
          name="hm_media"
          defaultValue={values?.mediaId ?? ""}
          options={[{ value: "", label: "None: use the link" }, ...uploads.map((m) => ({ value: m.id, label: m.name }))]}
        />
      ) : null}
      {kind === "document" ? (
        <Field
          label="File name (optional)"
          name="hm_filename"
          defaultValue={values?.filename ?? ""}
          maxLength={240}
          hint="The name people see, such as statement.pdf."
        />
      ) : null}
    </div>
  );
}

type ReviewData = NonNullable<NonNullable<Route.ComponentProps["actionData"]>["review"]>;

/** The form's values as hidden fields: the review posts them again with the chosen button. */
function hiddenFields(values: CampaignFormValues): [string, string][] {
  const fields: [string, string][] = [
    ["name", values.name],
    ["from", values.from],
    ["template", values.template],
    ["segment", values.segment],
    ["tags", values.tags],
    ["phones", values.phones],
    ["when", values.when],
    ["date", values.date],
    ["time", values.time],
  ];
  if (values.everyone) fields.push(["everyone", "on"]);
  values.body.forEach((p, i) =>
    fields.push([`p${i + 1}_source`, p.source], [`p${i + 1}_fallback`, p.fallback], [`p${i + 1}_value`, p.value]),
  );
  fields.push(["h_source", values.header.source], ["h_fallback", values.header.fallback], ["h_value", values.header.value]);
  fields.push(["hm_link", values.headerFile.link], ["hm_media", values.headerFile.mediaId], ["hm_filename", values.headerFile.filename]);
  for (const b of values.buttons)
    fields.push([`b${b.index}_source`, b.source], [`b${b.index}_fallback`, b.fallback], [`b${b.index}_value`, b.value]);
  return fields;
}

function Review({ kind, values, review }: { kind: Kind; values: CampaignFormValues; review: ReviewData }) {
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const leftOutTotal = review.leftOut.reduce((sum, r) => sum + r.count, 0);
  return (
    <Form method="post" className="space-y-6" aria-label="Review">
      {hiddenFields(values).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Card>
        <CardHeader
          title={review.name}
          description={review.when ? `Scheduled for ${review.when} (${zoneWords()})` : "Sends as soon as you confirm"}
        />
        <SummaryList
          className="mt-4"
          items={[
            { label: "Will receive it", value: <span data-testid="review-recipients">{formatNumber(review.recipients)}</span> },
            { label: "Left out", value: formatNumber(leftOutTotal) },
            {
              label: "Estimated cost",
              value: (
                <span data-testid="review-cost">
                  {formatKes(review.costCents)}{" "}
                  <span className="text-xs text-slate-500">
                    {review.includedLeft === null
                      ? `(${formatKes(review.perMessageCents)} a message, from your wallet)`
                      : `(your plan includes ${formatNumber(review.includedLeft)} more messages this month; ${formatKes(review.perMessageCents)} each beyond)`}
                  </span>
                </span>
              ),
            },
            { label: "From", value: review.from },
            { label: "Template", value: review.template },
            { label: "Audience", value: review.audience },
          ]}
        />
        {review.walletAvailableCents !== null ? (
          <div className="mt-4" data-testid="review-balance-warning">
            <Notice tone="warning" title="Your wallet cannot pay for all of it">
              The estimate is {formatKes(review.costCents)} and your wallet has {formatKes(review.walletAvailableCents)} available. Messages
              stop when the money runs out, and the {kind} pauses until a top-up covers the rest.{" "}
              <Link to="/billing" className="font-semibold underline">
                Top up your wallet
              </Link>
            </Notice>
          </div>
        ) : null}
        {review.approvalThreshold !== null ? (
          <p role="note" className="mt-4 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
            It reaches more than {formatNumber(review.approvalThreshold)} people, your organisation&apos;s approval threshold: confirming
            puts it to approval, and nothing is sent until an owner or admin other than you approves it.
          </p>
        ) : null}
        {review.leftOut.length ? (
          <div className="mt-4">
            <h3 className="text-sm font-semibold text-slate-900">Who is left out, and why</h3>
            <ul className="mt-1 list-disc pl-5 text-sm text-slate-700">
              {review.leftOut.map((r) => (
                <li key={r.reason}>
                  {r.words}: {formatNumber(r.count)}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </Card>
      <Card>
        <CardHeader title="Preview" description="The first messages as the people will read them." />
        <MessagePreviewList className="mt-4" messages={review.preview} empty="Nobody in this audience can receive it." />
      </Card>
      <div className="flex flex-wrap justify-end gap-2">
        <Button type="submit" name="intent" value="back" variant="secondary">
          Back
        </Button>
        {kind === "campaign" ? (
          <Button type="submit" name="intent" value="draft" variant="secondary" pending={busy("draft")} pendingText="Saving...">
            <Save className="size-4" aria-hidden /> Save as draft
          </Button>
        ) : null}
        <Button
          type="submit"
          name="intent"
          value="confirm"
          pending={busy("confirm")}
          pendingText="Starting..."
          disabled={review.recipients === 0}
        >
          {review.when ? <CalendarClock className="size-4" aria-hidden /> : <Send className="size-4" aria-hidden />}
          {review.when ? "Confirm and schedule" : `Confirm and send to ${formatNumber(review.recipients)}`}
        </Button>
      </div>
    </Form>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
