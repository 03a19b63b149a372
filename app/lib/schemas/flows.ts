// Chatbot flows' limits, step kinds and words, without zod: pages import them from here; the server
// checks a step's shape with its zod schema (app/.server/domains/automations/flows/steps.ts).
import { formatNumber } from "~/lib/dates";
import { PAYMENT_REQUEST_MAX_KES } from "~/lib/schemas/payment-requests";
import { m } from "~/paraglide/messages";

export const FLOWS_MAX = 50;
export const FLOW_STEPS_MAX = 25;
export const FLOW_NAME_MAX = 80;
export const FLOW_TEXT_MAX = 1024;
export const FLOW_IDLE_MIN = 1;
export const FLOW_IDLE_MAX = 7 * 24 * 60;
export const FLOW_IDLE_DEFAULT = 30;
export const FLOW_WAIT_MAX = 7 * 24 * 60;
export const FLOW_BUTTONS_MAX = 3;
export const FLOW_ROWS_MAX = 10;
/** Meta's limits: a reply button's title, a list row's title. */
export const FLOW_BUTTON_TITLE_MAX = 20;
export const FLOW_ROW_TITLE_MAX = 24;
export const FLOW_TRIES_MAX = 5;
export const FLOW_VARIABLE_PATTERN = /^[a-z][a-z0-9_]{0,29}$/;

export const FLOW_STEP_TYPES = ["message", "question", "branch", "set", "http", "wait", "handover", "payment", "products", "end"] as const;
export type FlowStepType = (typeof FLOW_STEP_TYPES)[number];
export const FLOW_QUESTION_INPUTS = ["text", "buttons", "list"] as const;
export const FLOW_VALIDATIONS = ["any", "phone", "number", "email", "date", "choice"] as const;
export const FLOW_BRANCH_SOURCES = ["answer", "variable", "field", "tag"] as const;
export const FLOW_BRANCH_OPERATORS = ["equals", "contains", "one_of", "empty"] as const;
export const FLOW_SET_ACTIONS = ["field", "add_tag", "remove_tag"] as const;
export const FLOW_MEDIA_KINDS = ["image", "document", "video"] as const;
/** A products step's message (decision 143): a list, one product, or the catalogue's button. */
export const FLOW_PRODUCT_KINDS = ["product_list", "product", "catalog_message"] as const;
/** Meta's limits: the products a list names, a list's heading. */
export const FLOW_PRODUCTS_MAX = 30;
export const FLOW_PRODUCT_HEADER_MAX = 60;
export type FlowStatus = "draft" | "live" | "off";

/** Where a step leads: the next step in the order, the end, or a step by its id. */
export const NEXT = "next";
export const END = "end";
/**
 * A step's target that asks for a new step of a kind ("new:message"): the builder adds one, ending
 * the flow until it is filled in, and leads there (decision 113).
 */
export const NEW_TARGET = "new:";
/** The kinds a new target may be (an end is the target "the end" already). */
export const NEW_TARGET_TYPES = ["message", "question", "branch", "set", "http", "wait", "handover", "payment", "products"] as const;

/** Each step kind's name, in the request's language. */
export function stepTypeWords(type: FlowStepType): string {
  switch (type) {
    case "message":
      return m.automations_flows_step_message();
    case "question":
      return m.automations_flows_step_question();
    case "branch":
      return m.automations_flows_step_branch();
    case "set":
      return m.automations_flows_step_set();
    case "http":
      return m.automations_flows_step_http();
    case "wait":
      return m.automations_flows_step_wait();
    case "handover":
      return m.automations_flows_step_handover();
    case "payment":
      return m.automations_flows_step_payment();
    case "products":
      return m.automations_flows_step_products();
    case "end":
      return m.automations_flows_step_end();
  }
}

export function flowStatusWords(status: FlowStatus): string {
  switch (status) {
    case "draft":
      return m.automations_flows_status_draft();
    case "live":
      return m.automations_flows_status_live();
    case "off":
      return m.automations_flows_status_off();
  }
}

// Getters: each text is read in the language of the request that reports it.
export const FLOW_MESSAGES = {
  get notFound() {
    return m.automations_flows_error_not_found();
  },
  get nameRequired() {
    return m.automations_flows_error_name_required({ max: FLOW_NAME_MAX });
  },
  get limit() {
    return m.automations_flows_error_limit({ max: formatNumber(FLOWS_MAX) });
  },
  get stepsLimit() {
    return m.automations_flows_error_steps_limit({ max: formatNumber(FLOW_STEPS_MAX) });
  },
  get idle() {
    return m.automations_flows_error_idle({ min: FLOW_IDLE_MIN, max: formatNumber(FLOW_IDLE_MAX) });
  },
  get text() {
    return m.automations_flows_error_text({ max: formatNumber(FLOW_TEXT_MAX) });
  },
  get buttons() {
    return m.automations_flows_error_buttons({ max: FLOW_BUTTONS_MAX, length: FLOW_BUTTON_TITLE_MAX });
  },
  get rows() {
    return m.automations_flows_error_rows({ max: FLOW_ROWS_MAX, length: FLOW_ROW_TITLE_MAX });
  },
  get media() {
    return m.automations_flows_error_media();
  },
  get variable() {
    return m.automations_flows_error_variable();
  },
  get tries() {
    return m.automations_flows_error_tries({ max: FLOW_TRIES_MAX });
  },
  get target() {
    return m.automations_flows_error_target();
  },
  get key() {
    return m.automations_flows_error_key();
  },
  get url() {
    return m.automations_flows_error_url({ example: "https://shop.example.co.ke/orders/{{order}}" });
  },
  get urlHost() {
    return m.automations_flows_error_url_host({ example: "{{order}}" });
  },
  get urlPrivate() {
    return m.automations_flows_error_url_private();
  },
  get urlCredentials() {
    return m.automations_flows_error_url_credentials();
  },
  get conversion() {
    return m.automations_flows_error_conversion();
  },
  get wait() {
    return m.automations_flows_error_wait({ max: formatNumber(FLOW_WAIT_MAX) });
  },
  get amount() {
    return m.automations_flows_error_amount({ max: formatNumber(PAYMENT_REQUEST_MAX_KES), example: "{{total}}" });
  },
  get paymentText() {
    return m.automations_flows_error_payment_text();
  },
  get reference() {
    return m.automations_flows_error_reference();
  },
  get expiry() {
    return m.automations_flows_error_expiry();
  },
  get shortcode() {
    return m.automations_flows_error_shortcode();
  },
  get products() {
    return m.automations_flows_error_products({ max: FLOW_PRODUCTS_MAX });
  },
  get member() {
    return m.automations_flows_error_member();
  },
  get step() {
    return m.automations_flows_error_step();
  },
  get noSteps() {
    return m.automations_flows_error_no_steps();
  },
  targetedBy(place: number) {
    return m.automations_flows_error_targeted({ place });
  },
  get notPublished() {
    return m.automations_flows_error_not_published();
  },
  get confirmFirst() {
    return m.automations_flows_error_confirm();
  },
  get unknownAction() {
    return m.automations_flows_error_unknown_action();
  },
};
