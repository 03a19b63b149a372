import { m } from "~/paraglide/messages";

/** The spec's integration categories, in its order. */
export const INTEGRATION_CATEGORIES = ["CRM", "E-commerce", "Analytics", "Marketing", "Support", "Development"] as const;
export type IntegrationCategory = (typeof INTEGRATION_CATEGORIES)[number];

/** The spec's setup complexity. */
export const SETUP_COMPLEXITIES = ["Easy", "Medium", "Advanced"] as const;
export type SetupComplexity = (typeof SETUP_COMPLEXITIES)[number];

/** The spec's integration statuses: coming-soon cannot be connected. */
export const INTEGRATION_STATUSES = ["connected", "available", "coming-soon"] as const;
export type IntegrationStatus = (typeof INTEGRATION_STATUSES)[number];

/** The category in `?category=`, or null for all (anything else is all too). */
export function categoryOf(value: string | null): IntegrationCategory | null {
  return (INTEGRATION_CATEGORIES as readonly string[]).includes(value ?? "") ? (value as IntegrationCategory) : null;
}

export function categoryWords(category: IntegrationCategory) {
  switch (category) {
    case "CRM":
      return m.integrations_category_crm();
    case "E-commerce":
      return m.integrations_category_ecommerce();
    case "Analytics":
      return m.integrations_category_analytics();
    case "Marketing":
      return m.integrations_category_marketing();
    case "Support":
      return m.integrations_category_support();
    case "Development":
      return m.integrations_category_development();
  }
}

export function complexityWords(complexity: SetupComplexity) {
  switch (complexity) {
    case "Easy":
      return m.integrations_complexity_easy();
    case "Medium":
      return m.integrations_complexity_medium();
    case "Advanced":
      return m.integrations_complexity_advanced();
  }
}

export function statusWords(status: IntegrationStatus) {
  switch (status) {
    case "connected":
      return m.integrations_status_connected();
    case "available":
      return m.integrations_status_available();
    case "coming-soon":
      return m.integrations_status_coming_soon();
  }
}
