import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "./errors";
import { CATEGORY_VALUES, LANGUAGE_VALUES, MEDIA_FORMATS, SAMPLE_TYPES, TEMPLATE_STATUSES } from "../../../lib/templates";

/**
 * The public API's shapes, once: they validate requests and answers at run time, and the OpenAPI
 * document (openapi.ts) is generated from them, so the documentation cannot drift from the API.
 */

export const ApiError = z
  .object({
    type: z.string().describe("The code's entry in the published error catalogue (the Developers page's Errors), a URL."),
    title: z.string().describe("What the code means, in the catalogue's words."),
    status: z.int().describe("The HTTP status, as answered."),
    detail: z.string().describe("What went wrong here and what to do, for people (the same as message)."),
    requestId: z.string().describe("The request's id, as the X-Request-Id header: quote it when you ask Jumbe's support."),
    code: z
      .enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]])
      .describe("Stable, machine-readable error code from the catalogue (x-error-catalogue), e.g. invalid_api_key or rate_limited."),
    message: z.string().describe("What went wrong and what to do, for people (as detail; kept for the clients written before it)."),
    permission: z.string().optional().describe("permission_denied: the permission the key's role lacks, e.g. templates:manage."),
    field: z
      .string()
      .optional()
      .describe("invalid_automation: the body's field the problem is about, as a path, e.g. keywords[1] or hours.monday[0].from."),
  })
  .meta({ id: "Error" });

export const Account = z
  .object({
    organization: z.object({
      id: z.uuid(),
      name: z.string(),
      businessId: z.string(),
      status: z.enum(["pending", "active", "suspended"]),
    }),
    plan: z.object({
      type: z.string().describe("Starter, Growth or Enterprise."),
      billingType: z.string().describe("prepaid or postpaid."),
      messageLimit: z.int().describe("Messages included per month."),
    }),
    wallet: z
      .object({
        balanceCents: z.int().describe("The wallet's balance in cents of KES (paid in, not yet spent)."),
        availableCents: z.int().describe("What can be spent now: the balance less the price held for queued prepaid messages."),
        currency: z.literal("KES"),
      })
      .optional()
      .describe("The prepaid wallet: only for a key whose role has billing:view (owner, admin); left out for the others."),
    usage: z.object({
      messagesThisMonth: z.int(),
      messageLimit: z.int(),
      percentUsed: z.number().min(0).max(100).describe("Capped at 100."),
    }),
  })
  .meta({ id: "Account" });

export const PhoneNumber = z
  .object({
    id: z.string().describe("WhatsApp phone number id, as Meta names it."),
    number: z.string().describe("E.164, e.g. +254711000001."),
    verifiedName: z.string().nullable(),
    wabaId: z.string(),
    connection: z.enum(["connected", "disconnected"]),
    quality: z.enum(["high", "medium", "low", "unknown"]),
    messagingLimit: z.string().nullable(),
    registered: z.boolean().describe("Registered for the Cloud API."),
  })
  .meta({ id: "PhoneNumber" });

export const PhoneNumberList = z.object({ data: z.array(PhoneNumber) }).meta({ id: "PhoneNumberList" });

export const PhoneNumbersQuery = z
  .object({
    connection: z
      .enum(["connected", "disconnected", "all"])
      .default("all")
      .describe("Only numbers whose account is connected, or disconnected."),
  })
  .strict();

export const NoQuery = z.object({}).strict();

// ---- Message templates ------------------------------------------------------------------------

export const Template = z
  .object({
    id: z.uuid().describe("Jumbe's id of the template (not Meta's)."),
    name: z.string().describe("Lowercase letters, numbers and underscores, e.g. order_update."),
    language: z.string().describe("Meta's language code: en, sw or fr for templates made in Jumbe."),
    category: z.enum(CATEGORY_VALUES).describe("Meta's category (Meta may move a template to another)."),
    status: z
      .enum(TEMPLATE_STATUSES)
      .describe(
        "draft: saved in Jumbe, not at Meta (yet); held: held for review, Jumbe reviews it before it goes to Meta (then pending, or rejected with platformRejection); pending: Meta is reviewing it; then approved, rejected, paused or disabled.",
      ),
    rejectionReason: z
      .string()
      .nullable()
      .describe("Meta's reason when rejected, e.g. INVALID_FORMAT, with its explanation when Meta gave one."),
    platformRejection: z
      .string()
      .nullable()
      .describe("Jumbe's reason when its review returned the template (status rejected, never sent to Meta); null otherwise."),
    components: z
      .array(z.looseObject({ type: z.string() }))
      .describe("The template's content in Meta's shape (HEADER, BODY, FOOTER, BUTTONS), as submitted to and returned by Meta."),
    wabaId: z.string().nullable().describe("The WhatsApp Business Account the template belongs to; null for a draft made without one."),
    createdAt: z.iso.datetime(),
    submittedAt: z.iso.datetime().nullable().describe("When it was last sent to Meta for review."),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "Template" });

export const TemplateList = z
  .object({
    data: z.array(Template).describe("Newest first."),
    nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page."),
  })
  .meta({ id: "TemplateList" });

/** A cursor of listTemplates (templates/queries.ts): base64url of "<created_at as PostgreSQL writes it>|<uuid>". */
function isTemplateCursor(value: string) {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) return false;
  const [at, id, ...rest] = Buffer.from(value, "base64url").toString().split("|");
  return !rest.length && /^\d{4}-\d{2}-\d{2}[ T][\d:.]+(Z|[+-]\d{2}(:?\d{2})?)$/.test(at ?? "") && /^[0-9a-f-]{36}$/.test(id ?? "");
}

export const TemplatesQuery = z
  .object({
    status: z.enum(TEMPLATE_STATUSES).optional().describe("Only templates in this status."),
    name: z.string().trim().max(100).optional().describe("Only templates whose name contains this text (empty: any)."),
    language: z.enum(LANGUAGE_VALUES).optional().describe("Only templates in this language."),
    cursor: z
      .string()
      .refine(isTemplateCursor, "not a cursor of this list: pass nextCursor from the previous page")
      .optional()
      .describe("nextCursor of the previous page."),
    limit: z.coerce.number().int().min(1).max(100).default(25).describe("Templates per page, 1 to 100."),
  })
  .strict();

export const TemplateIdParams = z.object({
  id: z.string().describe("The template's id (a UUID) from the list or from creating it."),
});

// Meta's components, as a request to POST /{waba-id}/message_templates carries them; a media
// header names a sample uploaded before (POST /api/v1/template-samples) instead of Meta's handle.

const HEADER_FORMATS = ["TEXT", ...MEDIA_FORMATS] as const;

const HeaderComponent = z
  .strictObject({
    type: z.literal("HEADER"),
    format: z.enum(HEADER_FORMATS, { error: "A header's format is TEXT, IMAGE, VIDEO or DOCUMENT." }),
    text: z.string().optional().describe("TEXT: up to 60 characters; at most one variable, {{1}}."),
    example: z
      .strictObject({
        header_text: z.array(z.string()).max(1).optional().describe("The example value of {{1}}."),
        header_handle: z
          .array(z.string())
          .max(1)
          .optional()
          .describe("Not taken: Jumbe uploads a media header's sample to Meta itself. Give sampleId instead."),
      })
      .optional()
      .describe("TEXT: required when the text has {{1}}."),
    sampleId: z
      .uuid()
      .optional()
      .describe(
        "IMAGE, VIDEO and DOCUMENT: the id POST /api/v1/template-samples answered for the sample (JPEG or PNG up to 5 MB, MP4 up to 16 MB, PDF up to 16 MB). Jumbe uploads it to Meta.",
      ),
  })
  .meta({ id: "TemplateHeader", description: "A text or media header (not for AUTHENTICATION templates)." });

const BodyComponent = z
  .strictObject({
    type: z.literal("BODY"),
    text: z
      .string()
      .optional()
      .describe(
        "Up to 1,024 characters with variables {{1}}, {{2}}... in order; it may not start or end with a variable, nor have two side by side. Not for AUTHENTICATION templates (Meta writes their body).",
      ),
    example: z
      .strictObject({
        body_text: z
          .array(z.array(z.string()).max(100))
          .max(1)
          .describe('One list with an example value for each variable, in order: [["Amina", "#1042"]].'),
      })
      .optional()
      .describe("Required when the text has variables."),
    add_security_recommendation: z.boolean().optional().describe('AUTHENTICATION only: adds "For your security, do not share this code."'),
  })
  .meta({ id: "TemplateBody", description: "The message text; required except in AUTHENTICATION templates, where it is optional." });

const FooterComponent = z
  .strictObject({
    type: z.literal("FOOTER"),
    text: z.string().optional().describe("Up to 60 characters, no variables. Not for AUTHENTICATION templates."),
    code_expiration_minutes: z.int().optional().describe("AUTHENTICATION only: the code expires after 1 to 90 minutes."),
  })
  .meta({ id: "TemplateFooter" });

const templateButton = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("QUICK_REPLY"), text: z.string().describe("Up to 25 characters.") }),
    z.strictObject({
      type: z.literal("URL"),
      text: z.string().describe("Up to 25 characters."),
      url: z.string().describe("https://... ; may end in one variable, {{1}}."),
      example: z.array(z.string()).max(1).optional().describe("The example value of the URL's {{1}}."),
    }),
    z.strictObject({
      type: z.literal("PHONE_NUMBER"),
      text: z.string().describe("Up to 25 characters."),
      phone_number: z.string().describe("International form, e.g. +254711000001."),
    }),
    z.strictObject({
      type: z.literal("COPY_CODE"),
      example: z.string().describe("MARKETING only: the example offer code, up to 15 characters without spaces."),
    }),
    z.strictObject({
      type: z.literal("OTP"),
      otp_type: z.enum(["COPY_CODE", "ONE_TAP"]).describe("AUTHENTICATION only."),
      text: z.string().optional().describe("The button's text, e.g. Copy code."),
      supported_apps: z
        .array(z.strictObject({ package_name: z.string(), signature_hash: z.string() }))
        .max(1)
        .optional()
        .describe("ONE_TAP: the Android app that receives the code."),
    }),
  ],
  { error: () => "Unknown button type: use QUICK_REPLY, URL, PHONE_NUMBER, COPY_CODE or (AUTHENTICATION) OTP." },
);

const ButtonsComponent = z
  .strictObject({
    type: z.literal("BUTTONS"),
    buttons: z.array(templateButton).min(1).max(100).describe("Up to 10 buttons; quick replies together, before or after the others."),
  })
  .meta({ id: "TemplateButtons" });

const templateComponent = z.discriminatedUnion("type", [HeaderComponent, BodyComponent, FooterComponent, ButtonsComponent], {
  error: () => "Unknown component type: use HEADER, BODY, FOOTER or BUTTONS.",
});

const AUTH_ONLY = "is for AUTHENTICATION templates only";

export const TemplateCreate = z
  .strictObject({
    name: z
      .string()
      .describe("Lowercase letters, numbers and underscores, up to 512 characters; unique per WhatsApp account and language."),
    language: z.enum(LANGUAGE_VALUES).describe("en (English), sw (Swahili) or fr (French)."),
    category: z.enum(CATEGORY_VALUES),
    components: z
      .array(templateComponent)
      .min(1)
      .max(4)
      .describe(
        "At most one of each type. AUTHENTICATION: BODY (add_security_recommendation), FOOTER (code_expiration_minutes) and BUTTONS with one OTP button.",
      ),
    wabaId: z
      .string()
      .max(64)
      .optional()
      .describe("The WhatsApp Business Account to submit it to; required when you have connected more than one."),
  })
  .superRefine((value, ctx) => {
    const seen = new Set<string>();
    value.components.forEach((component, i) => {
      if (seen.has(component.type))
        ctx.addIssue({ code: "custom", path: ["components", i], message: `Only one ${component.type} component.` });
      seen.add(component.type);
      const issue = (key: string, message: string) => ctx.addIssue({ code: "custom", path: ["components", i, key], message });
      if (component.type === "HEADER" && value.category !== "AUTHENTICATION") {
        if (component.format === "TEXT") {
          if (component.text === undefined) issue("text", "A TEXT header needs its text.");
          if (component.sampleId !== undefined)
            issue("sampleId", "A TEXT header has no sample: sampleId is for IMAGE, VIDEO and DOCUMENT.");
          if (component.example?.header_handle !== undefined) issue("example", "A TEXT header's example is header_text.");
        } else {
          if (component.example?.header_handle !== undefined)
            issue(
              "example",
              `Jumbe uploads the sample to Meta itself: give the ${component.format} header's sampleId (POST /api/v1/template-samples), not example.header_handle.`,
            );
          else if (component.sampleId === undefined)
            issue(
              "sampleId",
              `A ${component.format} header needs its sample: upload it with POST /api/v1/template-samples and give its id.`,
            );
          if (component.text !== undefined || component.example?.header_text !== undefined)
            issue(component.text !== undefined ? "text" : "example", `A ${component.format} header has no text: only sampleId.`);
        }
      }
      if (value.category === "AUTHENTICATION") {
        if (component.type === "HEADER") issue("type", "Authentication templates have no header.");
        if (component.type === "BODY" && component.text !== undefined)
          issue("text", "Authentication templates have no body text of yours: Meta writes it.");
        if (component.type === "FOOTER" && component.text !== undefined)
          issue("text", "Authentication templates have no footer text: use code_expiration_minutes.");
        if (component.type === "BUTTONS" && (component.buttons.length !== 1 || component.buttons[0]!.type !== "OTP"))
          issue("buttons", "Authentication templates have exactly one button, of type OTP.");
      } else {
        if (component.type === "BODY" && component.add_security_recommendation !== undefined)
          issue("add_security_recommendation", AUTH_ONLY);
        if (component.type === "FOOTER" && component.code_expiration_minutes !== undefined) issue("code_expiration_minutes", AUTH_ONLY);
        if (component.type === "BUTTONS")
          component.buttons.forEach((button, b) => {
            if (button.type === "OTP")
              ctx.addIssue({
                code: "custom",
                path: ["components", i, "buttons", b, "type"],
                message: `OTP buttons are for AUTHENTICATION templates only.`,
              });
          });
      }
    });
    if (value.category === "AUTHENTICATION" && !seen.has("BUTTONS"))
      ctx.addIssue({
        code: "custom",
        path: ["components"],
        message: "Authentication templates need a BUTTONS component with one OTP button.",
      });
  })
  .meta({ id: "TemplateCreate" });

export const TEMPLATE_CREATE_EXAMPLE: z.input<typeof TemplateCreate> = {
  name: "order_update",
  language: "en",
  category: "UTILITY",
  components: [
    { type: "HEADER", format: "TEXT", text: "Order {{1}}", example: { header_text: ["#1042"] } },
    {
      type: "BODY",
      text: "Hello {{1}}, your order {{2}} is on its way. Thank you for shopping with us.",
      example: { body_text: [["Amina", "#1042"]] },
    },
    { type: "FOOTER", text: "Reply STOP to opt out" },
    {
      type: "BUTTONS",
      buttons: [
        { type: "URL", text: "Track order", url: "https://example.co.ke/orders/{{1}}", example: ["1042"] },
        { type: "QUICK_REPLY", text: "Talk to us" },
      ],
    },
  ],
};

export const TemplateSample = z
  .object({
    id: z.uuid().describe("Give it as sampleId of a media HEADER in POST /api/v1/templates (within 24 hours: unused samples are deleted)."),
    contentType: z.enum(SAMPLE_TYPES as [string, ...string[]]),
    size: z.int().describe("Bytes."),
  })
  .meta({ id: "TemplateSample" });

export const TemplateSampleQuery = z
  .object({
    fileName: z
      .string()
      .trim()
      .max(200)
      .optional()
      .describe("The file's name, shown beside the template (default sample.png and the like)."),
  })
  .strict();

/** Named schemas that appear inside others: listed so the OpenAPI document names them too. */
export const NESTED_SCHEMAS = [PhoneNumber, Template, HeaderComponent, BodyComponent, FooterComponent, ButtonsComponent];
