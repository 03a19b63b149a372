import { z } from "zod";
import {
  AUTO_TEXT_MAX,
  AUTOMATION_MATCH_TYPES,
  LEAST_BUSY,
  THEN_ASSISTANT,
  RULE_BUTTON_MAX,
  RULE_LIST_ROW_MAX,
  RULE_LIST_ROWS_MAX,
  RULE_TEMPLATE_PARAMETER_MAX,
  RULE_BUTTONS_MAX,
  RULE_COOLDOWN_MAX_MINUTES,
  RULE_NAME_MAX,
  RULE_REPLY_MAX,
  RULE_TAG_MAX,
  RULE_TAGS_MAX,
  RULES_MAX,
} from "~/lib/schemas/automations-rules";
import { FLOW_PRODUCT_HEADER_MAX, FLOW_PRODUCT_KINDS, FLOW_PRODUCTS_MAX } from "~/lib/schemas/flows";
import {
  DEFAULT_FUZZY_THRESHOLD,
  MAX_FUZZY_THRESHOLD,
  MAX_KEYWORD_LENGTH,
  MAX_KEYWORDS,
  MIN_FUZZY_THRESHOLD,
} from "../../domains/automations/match";
import { ANY_AD } from "../../domains/automations/from-ad";
import { MAX_REGEX_LENGTH } from "../../domains/automations/regex-safety";
import { MAX_HOLIDAYS, MAX_RANGES_PER_DAY, NEXT_OPENING_DAYS, type Weekday } from "../../domains/automations/hours";

/**
 * The automations endpoints' shapes (issue 44); the OpenAPI document is generated from them. The
 * bodies check types and shapes only: what a rule or the hours must be (a keyword, a pattern's
 * safety, the threshold, a time, a text's length) is the domain's check, the Automations page's,
 * answered 422 invalid_automation with the field. The body itself is bounded (64 KB) by the router.
 */

/** The weekdays by name, Monday first, with the domain's numbers (0 is Sunday). */
export const WEEKDAY_NAMES = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
export type WeekdayName = (typeof WEEKDAY_NAMES)[number];
export const WEEKDAY_NUMBER: Record<WeekdayName, Weekday> = {
  monday: 1,
  tuesday: 2,
  wednesday: 3,
  thursday: 4,
  friday: 5,
  saturday: 6,
  sunday: 0,
};

export const RuleIdParams = z.object({ id: z.string().describe("The rule's id (a UUID) from the list or from adding it.") });

const ACTIONS_WORDS = `What the rule does when it matches, at least one: reply sends a text (up to ${RULE_REPLY_MAX} characters), with up to ${RULE_BUTTONS_MAX} reply buttons, addTags and removeTags change the contact's tags (up to ${RULE_TAGS_MAX} in all, each up to ${RULE_TAG_MAX} characters), assignTo hands the conversation to a member who answers chats (an owner, admin or agent: their user id) or to the least busy one ("${LEAST_BUSY}"); once a person holds it, automations stay silent in it until it is resolved.`;

const SendProductsFields = {
  kind: z
    .enum(FLOW_PRODUCT_KINDS)
    .describe(
      "product_list: a list of the products named (a header needed); product: one product (exactly one named); catalog_message: the whole catalog, with the body as its text.",
    ),
  productIds: z
    .array(z.string())
    .describe(`Jumbe's ids of the products (the Shop page), up to ${FLOW_PRODUCTS_MAX}; empty for catalog_message.`),
  header: z.string().describe(`product_list: the list's heading, up to ${FLOW_PRODUCT_HEADER_MAX} characters; empty otherwise.`),
  body: z.string().describe("The message's text (needed for product_list and catalog_message)."),
};

const SendProductsInput = z.object(SendProductsFields).strict();

const RuleActionsInput = z
  .object({
    reply: z.string().nullable().optional().describe("The text sent to the customer, as a reply to their message; null or empty: none."),
    buttons: z
      .array(z.string())
      .nullable()
      .optional()
      .describe(
        `Reply buttons' titles under the reply, up to ${RULE_BUTTONS_MAX}, each up to ${RULE_BUTTON_MAX} characters, all different.`,
      ),
    list: z
      .object({
        button: z.string().describe(`What the customer taps to open the list, up to ${RULE_BUTTON_MAX} characters.`),
        rows: z
          .array(z.string())
          .describe(`The choices, up to ${RULE_LIST_ROWS_MAX}, each up to ${RULE_LIST_ROW_MAX} characters, all different.`),
      })
      .strict()
      .nullable()
      .optional()
      .describe("A list under the reply instead of buttons (a choice's id is rule:<rule id>:<its place>); null: none."),
    template: z
      .object({
        name: z.string().describe("An approved template's name (GET /api/v1/templates)."),
        language: z.string().describe("Its language code, as approved (en, sw, en_US…)."),
        parameters: z
          .array(z.string())
          .describe(`Its body's variables in order, as many as it has, each up to ${RULE_TEMPLATE_PARAMETER_MAX} characters.`),
      })
      .strict()
      .nullable()
      .optional()
      .describe(
        "An approved template sent instead of a text reply (no header or button that needs a value), priced as any template message; null: none.",
      ),
    addTags: z.array(z.string()).nullable().optional().describe("Tags added to the contact (stored as given, each once)."),
    removeTags: z.array(z.string()).nullable().optional().describe("Tags taken off the contact."),
    assignTo: z
      .string()
      .nullable()
      .optional()
      .describe(`The user id of a member who answers chats, or "${LEAST_BUSY}" for the least busy one; null: nobody.`),
    setField: z
      .object({
        key: z.string().describe("The key of one of the organisation's custom contact fields (Contacts, Fields)."),
        value: z.string().describe("The value it gets, written as the field's type (a number, a date YYYY-MM-DD, yes or no)."),
      })
      .strict()
      .nullable()
      .optional()
      .describe("Sets a custom field of the contact; null: none."),
    webhookUrl: z
      .string()
      .nullable()
      .optional()
      .describe(
        "An https address the customer's message is POSTed to (event automation.rule), signed with the organisation's webhook secret like webhooks out and checked the same way; null: none. Needs a webhook set up.",
      ),
    then: z
      .enum([THEN_ASSISTANT])
      .nullable()
      .optional()
      .describe(`"${THEN_ASSISTANT}": the AI assistant answers after the rule's own reply (on the numbers it answers on); null: nothing.`),
    startFlow: z
      .string()
      .nullable()
      .optional()
      .describe(
        "A chatbot flow's id (GET /api/v1/automations/flows): the rule starts it on its live version instead of sending its reply; null: none.",
      ),
    sendProducts: SendProductsInput.nullable()
      .optional()
      .describe(
        "Products from the organisation's catalog sent after the reply (the Automations page's Send products); null: none. Each product must be one the catalog holds now when the rule is saved; one gone later is left out when the rule runs, and nothing is sent when none is left.",
      ),
  })
  .strict();

const ruleFields = {
  name: z.string().describe(`The rule's name, for you (up to ${RULE_NAME_MAX} characters).`),
  matchType: z
    .enum(AUTOMATION_MATCH_TYPES)
    .describe(
      "How a keyword matches a message, case, accents, punctuation and emoji aside: exact (the message is the keyword's words), contains (its words together, as whole words, anywhere), starts_with (the message's first words), fuzzy (as contains, forgiving typing mistakes by threshold; words of up to three letters and numbers must be exact), or regex (each keyword a JavaScript regular expression, tried on the message in lower case without accents).",
    ),
  keywords: z
    .array(z.string())
    .describe(
      `Up to ${MAX_KEYWORDS} keywords, any of which matches; each up to ${MAX_KEYWORD_LENGTH} characters (a regular expression up to ${MAX_REGEX_LENGTH}, refused when it could take too long on some messages), none the same as another.`,
    ),
  threshold: z
    .number()
    .describe(
      `fuzzy only: how similar a message's words must be, from ${MIN_FUZZY_THRESHOLD} to ${MAX_FUZZY_THRESHOLD} (exactly the keyword); ${DEFAULT_FUZZY_THRESHOLD} when not given. Ignored for the other match types.`,
    ),
  phoneNumberId: z
    .string()
    .nullable()
    .describe("Only messages to this connected WhatsApp number (its id from GET /api/v1/phone-numbers); null: every number."),
  fromAd: z
    .string()
    .nullable()
    .describe(
      `Only messages a customer sends from a Click-to-WhatsApp ad: "${ANY_AD}" (any ad) or an ad's id at Meta (its source_id, the id of ads.byAd in GET /api/v1/analytics) that a customer of yours has come from; another's or an unknown id is refused (422, field fromAd). A rule with an ad may have no keywords: it answers every message from the ad. null: every message.`,
    ),
  cooldownMinutes: z
    .int()
    .describe(`Minutes before the rule answers the same person again, 0 to ${RULE_COOLDOWN_MAX_MINUTES} (a week); 0 when not given.`),
};

export const AutomationRuleCreate = z
  .object({
    name: ruleFields.name,
    matchType: ruleFields.matchType,
    keywords: ruleFields.keywords,
    threshold: ruleFields.threshold.optional(),
    phoneNumberId: ruleFields.phoneNumberId.optional(),
    fromAd: ruleFields.fromAd.optional(),
    cooldownMinutes: ruleFields.cooldownMinutes.optional(),
    actions: RuleActionsInput.describe(ACTIONS_WORDS),
  })
  .strict()
  .meta({ id: "AutomationRuleCreate" });

export const AutomationRuleUpdate = z
  .object({
    name: ruleFields.name.optional(),
    matchType: ruleFields.matchType.optional(),
    keywords: ruleFields.keywords.optional().describe("Replaces the rule's keywords."),
    threshold: ruleFields.threshold.optional(),
    phoneNumberId: ruleFields.phoneNumberId.optional(),
    fromAd: ruleFields.fromAd.optional(),
    cooldownMinutes: ruleFields.cooldownMinutes.optional(),
    actions: RuleActionsInput.optional().describe(
      "Each action given replaces the rule's (null or an empty list removes it); those not given stay.",
    ),
    enabled: z.boolean().optional().describe("Turns the rule on (true) or off (false): a rule that is off never answers."),
    position: z
      .int()
      .min(1)
      .optional()
      .describe(
        "Moves the rule to this place in the order: 1 is tried first; a place past the end puts it last. The others keep their order.",
      ),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, "give at least one field to change")
  .meta({ id: "AutomationRuleUpdate" });

export const AutomationRule = z
  .object({
    id: z.uuid(),
    name: z.string(),
    matchType: z.enum(AUTOMATION_MATCH_TYPES),
    keywords: z.array(z.string()),
    threshold: z.number().nullable().describe("fuzzy rules' threshold; null for the other match types."),
    phoneNumberId: z.string().nullable().describe("The only WhatsApp number the rule answers on; null: every number."),
    fromAd: z.string().nullable().describe(`Only messages from a Click-to-WhatsApp ad: "${ANY_AD}" or the ad's id; null: every message.`),
    cooldownMinutes: z.int(),
    actions: z
      .object({
        reply: z.string().nullable(),
        buttons: z.array(z.string()).describe("The reply's buttons; empty: none."),
        list: z
          .object({ button: z.string(), rows: z.array(z.string()) })
          .nullable()
          .describe("The reply's list; null: none."),
        template: z
          .object({ name: z.string(), language: z.string(), parameters: z.array(z.string()) })
          .nullable()
          .describe("The approved template the rule sends; null: none."),
        addTags: z.array(z.string()),
        removeTags: z.array(z.string()),
        assignTo: z.string().nullable().describe(`The user id of the member the conversation is handed to, or "${LEAST_BUSY}".`),
        setField: z
          .object({ key: z.string(), value: z.union([z.string(), z.number(), z.boolean()]) })
          .nullable()
          .describe("The custom contact field the rule sets, and its value in the field's type."),
        webhookUrl: z.string().nullable().describe("The address the rule POSTs the customer's message to."),
        then: z.enum([THEN_ASSISTANT]).nullable().describe("What answers after the rule's own reply."),
        startFlow: z.string().nullable().describe("The chatbot flow the rule starts; null: none."),
        sendProducts: z.object(SendProductsFields).nullable().describe("The products the rule sends after its reply; null: none."),
      })
      .describe("What the rule does; an action it does not take is null or an empty list."),
    position: z.int().describe("The rule's place in the order the rules are tried, 1 first."),
    enabled: z.boolean(),
    firedCount: z.int().describe("How many messages the rule has answered."),
    lastFiredAt: z.iso.datetime().nullable().describe("When it last answered one; null: never."),
  })
  .meta({ id: "AutomationRule" });

export const AutomationRuleList = z
  .object({ data: z.array(AutomationRule).describe(`In the order they are tried, at most ${RULES_MAX}.`) })
  .meta({ id: "AutomationRuleList" });

// ---- Welcome, away message and hours -----------------------------------------------------------

const OpeningRange = z
  .object({
    from: z.string().describe("HH:MM, 00:00 to 23:59, included."),
    to: z.string().describe("HH:MM, up to 24:00, excluded; not after from: the range runs past midnight into the next day."),
  })
  .strict();

const HOURS_WORDS = `Opening times by weekday in the organisation's time zone, up to ${MAX_RANGES_PER_DAY} ranges a day that do not overlap; an empty list: closed all day.`;

const weekdays = <T extends z.ZodType>(day: T) =>
  z.object(Object.fromEntries(WEEKDAY_NAMES.map((name) => [name, day])) as Record<WeekdayName, T>).strict();

const autoMessageInput = (what: string) =>
  z
    .object({
      enabled: z.boolean().optional().describe(`Whether the ${what} is sent.`),
      text: z.string().optional().describe(`The ${what}, up to ${AUTO_TEXT_MAX} characters; required while it is enabled.`),
    })
    .strict();

export const AutomationSettingsUpdate = z
  .object({
    welcome: autoMessageInput("welcome message")
      .optional()
      .describe("Sent on a customer's first message ever, when no keyword rule answered."),
    away: autoMessageInput("away message")
      .optional()
      .describe("Sent outside business hours (once a conversation a day), when no keyword rule answered."),
    hours: weekdays(z.array(OpeningRange))
      .partial()
      .optional()
      .describe(`${HOURS_WORDS} The days given replace those days' times; the others stay.`),
    holidays: z
      .array(z.string())
      .optional()
      .describe(`Dates closed all day, YYYY-MM-DD in the organisation's time zone, up to ${MAX_HOLIDAYS}; replaces the list.`),
    holidayMode: z.boolean().optional().describe("Closed until turned off: the away message answers, announcing no opening."),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, "give at least one field to change")
  .meta({ id: "AutomationSettingsUpdate" });

const autoMessage = z.object({ enabled: z.boolean(), text: z.string() });

export const AutomationSettings = z
  .object({
    welcome: autoMessage.describe("Sent on a customer's first message ever, when no keyword rule answered."),
    away: autoMessage.describe("Sent outside business hours (once a conversation a day), when no keyword rule answered."),
    hours: weekdays(z.array(z.object({ from: z.string(), to: z.string() }))).describe(HOURS_WORDS),
    holidays: z.array(z.string()).describe("Dates closed all day, YYYY-MM-DD, in order."),
    holidayMode: z.boolean(),
    timeZone: z.string().describe("The organisation's time zone (Account Settings), in which the hours and holidays are read."),
    openNow: z.boolean().describe("Whether the organisation is open now by these hours."),
    nextOpeningAt: z.iso
      .datetime({ offset: true })
      .nullable()
      .describe(
        `When it next opens, while closed; null when open now, in holiday mode, or when nothing opens within ${NEXT_OPENING_DAYS} days.`,
      ),
  })
  .meta({ id: "AutomationSettings" });

export const AUTOMATION_RULE_CREATE_EXAMPLE: z.input<typeof AutomationRuleCreate> = {
  name: "Prices",
  matchType: "fuzzy",
  keywords: ["price", "bei", "how much"],
  threshold: 0.8,
  actions: {
    reply: "Our plans start at KES 2,000 a month. Reply PLANS to see them all.",
    addTags: ["asked-price"],
  },
};

export const AUTOMATION_RULE_UPDATE_EXAMPLE: z.input<typeof AutomationRuleUpdate> = {
  keywords: ["price", "bei", "how much", "gharama"],
  cooldownMinutes: 60,
  position: 1,
};

const workday = [{ from: "08:00", to: "17:00" }];

export const AUTOMATION_SETTINGS_EXAMPLE: z.input<typeof AutomationSettingsUpdate> = {
  welcome: { enabled: true, text: "Karibu Nyota Sacco! Tell us how we can help." },
  away: { enabled: true, text: "We are closed now and will answer when we open, Monday to Friday 8 am to 5 pm, Saturday 9 am to 1 pm." },
  hours: {
    monday: workday,
    tuesday: workday,
    wednesday: workday,
    thursday: workday,
    friday: workday,
    saturday: [{ from: "09:00", to: "13:00" }],
    sunday: [],
  },
  holidays: ["2026-12-25", "2026-12-26"],
  holidayMode: false,
};
