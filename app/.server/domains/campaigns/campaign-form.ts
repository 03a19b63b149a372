import { checkCampaign, estimateCampaign, walletAvailableCents, type CampaignInput } from "./lifecycle";
import type { TemplateChoice } from "./page-data";
import { previewMessages } from "./preview";
import { campaignProductsShown } from "./products";
import { overThreshold } from "./approval-request";
import { audienceLabel } from "./queries";
import { LEFT_OUT_WORDS } from "./failure-words";
import { refuseCampaign } from "./refusals";
import {
  headerFileOf,
  numbersIn,
  UPLOAD_MAX_BYTES,
  sourceOf,
  splitTagList,
  templateOfKey,
  type CampaignFormValues,
  type PlaceholderValues,
} from "~/lib/campaign-form";
import { formatWhen, zonedInstant } from "~/lib/dates";
import type { CampaignKind } from "~/lib/schemas/campaign";
import { CAMPAIGN_MESSAGES } from "~/lib/schemas/campaign-rules";
import { FALLBACK_AFTER_DEFAULT, worstCaseSms } from "~/lib/sms-fallback";
import { m } from "~/paraglide/messages";

const MEDIA_HEADERS = ["IMAGE", "VIDEO", "DOCUMENT"];
const EMPTY: PlaceholderValues = { source: "", fallback: "", value: "" };

/**
 * The domain's input from the form's checked values (app/lib/schemas/campaign.ts): a broadcast
 * without a name is named for its template; only a campaign is scheduled.
 */
export function campaignInputOf(values: CampaignFormValues, kind: CampaignKind, template: TemplateChoice | undefined): CampaignInput {
  const phones = numbersIn(values.phones);
  const tags = splitTagList(values.tags);
  const scheduledFor = kind === "campaign" && values.when === "later" ? (zonedInstant(values.date, values.time) ?? null) : null;
  const name =
    values.name.trim() ||
    (kind === "broadcast" && template ? m.messaging_broadcast_default_name({ template: template.name }).slice(0, 80) : values.name);
  return {
    name,
    kind,
    from: values.from || undefined,
    template: templateOfKey(values.template),
    parameters: parametersOf(values, template),
    audience: {
      ...(values.segment ? { segmentId: values.segment } : {}),
      ...(tags.length ? { tags } : {}),
      ...(phones.length ? { phones } : {}),
      ...(values.everyone ? { everyone: true } : {}),
    },
    scheduledFor,
    smsFallback: smsFallbackOf(values),
  };
}

/** The SMS fallback from the form: off, or its mode, text and minutes (an empty time: the default). */
function smsFallbackOf(values: CampaignFormValues): CampaignInput["smsFallback"] {
  if (values.smsFallback === "off") return null;
  const after = values.smsAfter.trim();
  return {
    mode: values.smsFallback,
    text: values.smsText,
    afterMinutes: after ? Number(after) : FALLBACK_AFTER_DEFAULT,
  };
}

/** The template's values from the form: the body's, a text header's, a media header's file, the buttons'. */
function parametersOf(values: CampaignFormValues, template: TemplateChoice | undefined): CampaignInput["parameters"] {
  const body = Array.from({ length: template?.bodyCount ?? 0 }, (_, i) => sourceOf(values.body[i] ?? EMPTY));
  const headerMedia = MEDIA_HEADERS.includes(template?.headerFormat ?? "") ? headerFileOf(values.headerFile) : undefined;
  const buttons = (template?.buttons ?? []).map((button) => ({
    index: button.index,
    source: sourceOf(values.buttons.find((b) => b.index === button.index) ?? EMPTY),
  }));
  const products = template?.productButton
    ? {
        thumbnail: values.products.thumbnail,
        ...(template.productButton === "MPM" ? { sections: values.products.sections } : {}),
      }
    : undefined;
  return {
    body,
    ...(products ? { products } : {}),
    ...(template?.headerTakesText ? { header: sourceOf(values.header) } : {}),
    ...(headerMedia ? { headerMedia } : {}),
    ...(buttons.length ? { buttons } : {}),
  };
}

/**
 * The Review step: the audience counted, priced and its first messages previewed, before anything
 * is stored. `segmentName` names the chosen segment; `approvalThreshold` is the organisation's.
 */
export async function reviewCampaign(
  organizationId: string,
  input: CampaignInput,
  options: { segmentName: (id: string | undefined) => string | null; approvalThreshold: number | null | undefined },
) {
  const checked = await checkCampaign(organizationId, input);
  const [estimate, preview, products] = await Promise.all([
    estimateCampaign(organizationId, checked),
    previewMessages(organizationId, checked, 3),
    campaignProductsShown(organizationId, checked.parameters.products),
  ]);
  const availableCents = await walletAvailableCents(organizationId, estimate);
  return {
    name: checked.name,
    from: checked.sender.number,
    template: `${checked.template.name} (${checked.template.language}, ${checked.template.category})`,
    audience: audienceLabel(checked.audience, options.segmentName(checked.audience.segmentId)),
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
    walletAvailableCents: availableCents !== null && estimate.estimatedCostCents > availableCents ? Math.max(0, availableCents) : null,
    includedLeft: estimate.includedLeft,
    preview,
    // A catalog or multi-product template's products, as the message will show them.
    products,
    // The SMS fallback's worst case: every recipient by SMS, each as long as the longest previewed (decision 152).
    sms: checked.smsFallback
      ? {
          afterMinutes: checked.smsFallback.afterMinutes,
          text: preview[0]?.sms ?? checked.smsFallback.text,
          ...worstCaseSms(
            estimate.recipients,
            preview.map((p) => p.sms ?? checked.smsFallback!.text),
          ),
        }
      : null,
    // Broadcast approval: confirming puts it to approval rather than sending it.
    approvalThreshold: overThreshold(options.approvalThreshold, estimate.recipients) ? (options.approvalThreshold ?? null) : null,
  };
}

export type CampaignReview = Awaited<ReturnType<typeof reviewCampaign>>;

/** The form as its Choose and Back steps read it: what was typed, the chosen file dropped (it is not sent back). */
export function withoutUploadedList(form: FormData) {
  form.delete("file");
  return form;
}

/**
 * The form as its Review, Confirm and Save steps read it: an uploaded list joins the pasted one (and
 * is carried as text from here on). A file too large or with no number in it is refused at the
 * audience (the form's prepare step, decision 119: answered as a post that does not fit).
 */
export async function joinUploadedList(form: FormData) {
  const file = form.get("file");
  form.delete("file");
  if (!file || typeof file === "string" || file.size === 0) return form;
  if (file.size > UPLOAD_MAX_BYTES) throw refuseCampaign(422, "invalid_audience", CAMPAIGN_MESSAGES.fileTooLarge, "audience");
  const uploaded = numbersIn(await file.text(), { file: true });
  if (!uploaded.length) throw refuseCampaign(422, "invalid_audience", CAMPAIGN_MESSAGES.fileEmpty, "audience");
  form.set("phones", [...numbersIn(String(form.get("phones") ?? "")), ...uploaded].join(", "));
  return form;
}
