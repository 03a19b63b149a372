import type { IntegrationCategory, IntegrationStatus, SetupComplexity } from "~/lib/integrations";
import { CATALOGUE, type ConnectKind, type IntegrationLogo } from "./catalogue";
import { listConnections, type ConnectionView } from "./connections";
import { restHooksSummary } from "./rest-hooks";
import { providerFor } from "./providers";
import { Refusal } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";

/** One card of the Integrations page: the spec's Integration, with its connection when it has one. */
export interface IntegrationCard {
  id: string;
  name: string;
  description: string;
  category: IntegrationCategory;
  status: IntegrationStatus;
  logo: IntegrationLogo;
  features: string[];
  setupComplexity: SetupComplexity;
  connect: ConnectKind | null;
  asks: readonly "shop"[];
  /** False for an available OAuth integration whose connector this server does not have (yet). */
  installed: boolean;
  connection: Pick<ConnectionView, "accountLabel" | "health" | "lastSyncAt" | "lastError" | "lastErrorAt" | "counts"> | null;
  /** The REST hooks card's subscriptions. */
  hooks: { count: number; lastDeliveryAt: string | null; lastDeliveryStatus: number | null } | null;
}

/**
 * The catalogue with each card's status from the organisation's own rows: connected when it has a
 * live connection (REST hooks: at least one subscription), else available or coming-soon. Texts in
 * the request's language. Two reads side by side, whatever the page filters.
 */
export async function integrationCards(organizationId: string): Promise<IntegrationCard[]> {
  const [connections, hooks] = await Promise.all([listConnections(organizationId), restHooksSummary(organizationId)]);
  const live = new Map(connections.filter((c) => c.status === "connected").map((c) => [c.provider, c]));
  return CATALOGUE.map((entry) => {
    const connection = live.get(entry.id) ?? null;
    const hooked = entry.connect === "rest-hooks" ? hooks : null;
    const connected = entry.connect === "rest-hooks" ? hooks.count > 0 : connection !== null;
    return {
      id: entry.id,
      name: entry.name,
      description: entry.description(),
      category: entry.category,
      status: entry.availability === "coming-soon" ? "coming-soon" : connected ? "connected" : "available",
      logo: entry.logo,
      features: entry.features(),
      setupComplexity: entry.setupComplexity,
      connect: entry.connect,
      asks: entry.asks ?? [],
      installed: entry.connect !== "oauth" || providerFor(entry.id) !== null,
      connection: connection && {
        accountLabel: connection.accountLabel,
        health: connection.health,
        lastSyncAt: connection.lastSyncAt,
        lastError: connection.lastError,
        lastErrorAt: connection.lastErrorAt,
        counts: connection.counts,
      },
      hooks: hooked,
    };
  });
}

/** What the integrations pages answer a post with an intent they do not have (a hand-made post). */
export function unknownIntegrationAction() {
  return new Refusal({ domain: "integration", status: 400, code: "unknown_action", message: m.integrations_unknown_action() });
}
