import type { IntegrationCategory, SetupComplexity } from "~/lib/integrations";
import { m } from "~/paraglide/messages";

/** How an integration is connected: OAuth through a registered provider, or REST hooks through the public API. */
export type ConnectKind = "oauth" | "rest-hooks";

/** The logos the cards draw (icons from the sprite: no third-party artwork is shipped). */
export type IntegrationLogo = "users" | "building" | "cart" | "tag" | "sheet" | "mail" | "support" | "chat" | "zap";

export interface CatalogueEntry {
  id: string;
  /** A product's own name: the same in every language. */
  name: string;
  category: IntegrationCategory;
  setupComplexity: SetupComplexity;
  /** available: it can be connected; coming-soon: shown, never connectable (the server refuses it too). */
  availability: "available" | "coming-soon";
  connect: ConnectKind | null;
  logo: IntegrationLogo;
  /** What the connect form asks for besides the provider: a Shopify shop's domain. */
  asks?: readonly "shop"[];
  description: () => string;
  features: () => string[];
}

/**
 * Every integration the page shows, in the order it shows them (issue 45). The four available ones
 * are built for real; the coming-soon ones are honest placeholders for systems customers ask about.
 */
export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    id: "hubspot",
    name: "HubSpot",
    category: "CRM",
    setupComplexity: "Medium",
    availability: "available",
    connect: "oauth",
    logo: "users",
    description: m.integrations_hubspot_description,
    features: () => [
      m.integrations_hubspot_feature_contacts(),
      m.integrations_hubspot_feature_messages(),
      m.integrations_hubspot_feature_optouts(),
    ],
  },
  {
    id: "shopify",
    name: "Shopify",
    category: "E-commerce",
    setupComplexity: "Medium",
    availability: "available",
    connect: "oauth",
    logo: "cart",
    asks: ["shop"],
    description: m.integrations_shopify_description,
    features: () => [
      m.integrations_shopify_feature_orders(),
      m.integrations_shopify_feature_carts(),
      m.integrations_shopify_feature_templates(),
    ],
  },
  {
    id: "google-sheets",
    name: "Google Sheets",
    category: "Analytics",
    setupComplexity: "Easy",
    availability: "available",
    connect: "oauth",
    logo: "sheet",
    description: m.integrations_google_sheets_description,
    features: () => [m.integrations_google_sheets_feature_export(), m.integrations_google_sheets_feature_import()],
  },
  {
    id: "rest-hooks",
    name: "REST hooks",
    category: "Development",
    setupComplexity: "Advanced",
    availability: "available",
    connect: "rest-hooks",
    logo: "zap",
    description: m.integrations_rest_hooks_description,
    features: () => [
      m.integrations_rest_hooks_feature_triggers(),
      m.integrations_rest_hooks_feature_signed(),
      m.integrations_rest_hooks_feature_send(),
    ],
  },
  {
    id: "salesforce",
    name: "Salesforce",
    category: "CRM",
    setupComplexity: "Advanced",
    availability: "coming-soon",
    connect: null,
    logo: "building",
    description: m.integrations_salesforce_description,
    features: () => [m.integrations_feature_contact_sync()],
  },
  {
    id: "zoho-crm",
    name: "Zoho CRM",
    category: "CRM",
    setupComplexity: "Medium",
    availability: "coming-soon",
    connect: null,
    logo: "users",
    description: m.integrations_zoho_description,
    features: () => [m.integrations_feature_contact_sync()],
  },
  {
    id: "woocommerce",
    name: "WooCommerce",
    category: "E-commerce",
    setupComplexity: "Medium",
    availability: "coming-soon",
    connect: null,
    logo: "tag",
    description: m.integrations_woocommerce_description,
    features: () => [m.integrations_feature_order_updates()],
  },
  {
    id: "mailchimp",
    name: "Mailchimp",
    category: "Marketing",
    setupComplexity: "Easy",
    availability: "coming-soon",
    connect: null,
    logo: "mail",
    description: m.integrations_mailchimp_description,
    features: () => [m.integrations_feature_audience_sync()],
  },
  {
    id: "zendesk",
    name: "Zendesk",
    category: "Support",
    setupComplexity: "Medium",
    availability: "coming-soon",
    connect: null,
    logo: "support",
    description: m.integrations_zendesk_description,
    features: () => [m.integrations_feature_tickets()],
  },
  {
    id: "freshdesk",
    name: "Freshdesk",
    category: "Support",
    setupComplexity: "Easy",
    availability: "coming-soon",
    connect: null,
    logo: "chat",
    description: m.integrations_freshdesk_description,
    features: () => [m.integrations_feature_tickets()],
  },
];

/** The catalogue's entry with this id, or null. */
export function catalogueEntry(id: string): CatalogueEntry | null {
  return CATALOGUE.find((entry) => entry.id === id) ?? null;
}
