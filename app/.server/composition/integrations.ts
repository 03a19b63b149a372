import { registerGoogleSheetsConnector } from "./google-sheets-connector";
import { registerShopifyConnector } from "./shopify-connector";
import { registerHubspotConnector } from "./hubspot-connector";

/**
 * The connectors of issue 45, registered once per process (servers from server.ts, tests from their
 * setup): each connector module exports one `register…Connector()` that registers its
 * `IntegrationProvider` (domains/integrations/providers.ts) and its job handlers.
 */
export function registerConnectors() {
  // One line per connector: register<Name>Connector();
  registerGoogleSheetsConnector();
  registerShopifyConnector();
  registerHubspotConnector();
}
