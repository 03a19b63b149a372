import type { AttributeDefinition } from "../contacts";
import type { CampaignButton, CampaignHeaderMedia, ParameterSource } from "../../infrastructure/db/schema/campaigns";
import type { PreparedTemplate } from "../messaging";
import { campaignRefusalOfSend, refuseCampaign } from "./refusals";
import { checkParameterSources, parameterValue, type RecipientFields } from "./variables";
import { isRefusal } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";

/**
 * A campaign's values beyond the body: a media header's file (one for everyone) and the buttons
 * that take a value per person (a dynamic URL's suffix, a copy code), each from a contact field with
 * a fallback or a fixed text, like the body's placeholders.
 */

export const LINK_MAX = 2048;
export const FILENAME_MAX = 240;
/** WhatsApp's longest copy code. */
export const COPY_CODE_MAX = 15;
const MEDIA_FORMATS = ["IMAGE", "VIDEO", "DOCUMENT"];

const refuseValues = (message: string) => refuseCampaign(422, "invalid_parameters", message, "parameters");

/** The header file as given, tidied: one https link or one uploaded file's id, and a document's name. */
export function headerMediaInput(media: CampaignHeaderMedia | undefined): CampaignHeaderMedia | undefined {
  if (!media) return undefined;
  const link = String(media.link ?? "").trim();
  const mediaId = String(media.mediaId ?? "").trim();
  const filename = String(media.filename ?? "").trim();
  if (!link && !mediaId) return undefined;
  if (link && mediaId) throw refuseValues(m.messaging_header_file_both());
  if (link) checkLink(link);
  if (filename.length > FILENAME_MAX) throw refuseValues(m.messaging_header_file_name_too_long({ max: FILENAME_MAX }));
  return { ...(link ? { link } : { mediaId }), ...(filename ? { filename } : {}) };
}

function checkLink(link: string) {
  let url: URL | undefined;
  try {
    url = new URL(link);
  } catch {
    url = undefined;
  }
  if (!url || link.length > LINK_MAX || !url.hostname) throw refuseValues(m.messaging_header_link_invalid());
  if (url.protocol !== "https:") throw refuseValues(m.messaging_header_link_not_https());
}

/** The file given fits the template: a media header has one (prepareTemplate refused it missing), another has none. */
export function checkHeaderMediaFits(template: PreparedTemplate, media: CampaignHeaderMedia | undefined) {
  if (media && !MEDIA_FORMATS.includes(template.headerFormat ?? ""))
    throw refuseValues(m.messaging_header_file_not_needed({ template: template.name }));
}

const buttonName = (button: PreparedTemplate["buttons"][number]) =>
  m.messaging_button_name({ number: button.index + 1, text: button.text.slice(0, 25) });

/** One value per button that takes one (checked like the body's), none for another; in the buttons' order. */
export function checkButtonSources(
  template: PreparedTemplate,
  given: CampaignButton[] | undefined,
  attributes: Map<string, AttributeDefinition>,
): CampaignButton[] {
  const list = given ?? [];
  for (const entry of list) {
    if (!template.buttons.some((b) => b.index === entry?.index))
      throw refuseValues(m.messaging_button_unknown({ template: template.name, number: Number(entry?.index) + 1 }));
  }
  const sources = template.buttons.map((button) => {
    const found = list.filter((entry) => entry.index === button.index);
    if (found.length > 1) throw refuseValues(m.messaging_button_one_value({ button: buttonName(button), count: found.length }));
    if (!found[0])
      throw refuseValues(
        button.kind === "url"
          ? m.messaging_button_url_value_required({ button: buttonName(button) })
          : m.messaging_button_code_value_required({ button: buttonName(button) }),
      );
    return found[0].source;
  });
  const checked = checkParameterSources(sources, template.buttons.length, attributes, "buttons", template.buttons.map(buttonName));
  template.buttons.forEach((button, i) => {
    const source = checked[i]!;
    if (button.kind === "copy_code" && "value" in source && source.value.length > COPY_CODE_MAX)
      throw refuseValues(m.messaging_button_code_too_long({ max: COPY_CODE_MAX }));
  });
  return template.buttons.map((button, i) => ({ index: button.index, source: checked[i]! }));
}

/** Each button's value for one recipient; an empty one leaves them out (missing_value). */
export const buttonValues = (buttons: CampaignButton[] | undefined, recipient: RecipientFields) =>
  (buttons ?? []).map((button) => ({ index: button.index, value: parameterValue(button.source, recipient) }));

export const buttonSources = (buttons: CampaignButton[] | undefined): ParameterSource[] => (buttons ?? []).map((b) => b.source);

/**
 * The template's refusals as the campaign's: a missing or unusable header file is about its values
 * (`parameters`); the rest (not found, not approved) about the template.
 */
export function templateRefusal(error: unknown) {
  if (!isRefusal(error, "send")) return error;
  if (error.code === "parameter_mismatch") return refuseCampaign(422, "invalid_parameters", error.message, "parameters");
  if (error.code === "media_not_found" || error.code === "media_type_mismatch") return campaignRefusalOfSend(error, "parameters");
  return campaignRefusalOfSend(error, "template");
}

/** How a preview shows the header file: "[image: poster.jpg]". */
export function headerMediaLabel(format: string | null, media: (CampaignHeaderMedia & { uploadedName?: string }) | null | undefined) {
  if (!media || !format) return null;
  const name = media.filename || media.uploadedName || media.link || m.messaging_header_uploaded_file();
  return m.messaging_preview_header_media({ kind: mediaKindWords(format), name });
}

/** A media header's kind in words ("image"), for a preview or a form; another format as Meta names it, lower-cased. */
export function mediaKindWords(format: string): string {
  const words: Record<string, () => string> = {
    IMAGE: m.messaging_media_kind_image,
    VIDEO: m.messaging_media_kind_video,
    DOCUMENT: m.messaging_media_kind_document,
  };
  return words[format.toUpperCase()]?.() ?? format.toLowerCase();
}
