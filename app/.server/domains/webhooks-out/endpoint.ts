import { eq, sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { webhookEndpoints } from "../../infrastructure/db/schema";
import { env } from "../../infrastructure/config/env";
import {
  isForbiddenAddress,
  isForbiddenTarget,
  resolveOutboundTarget,
  systemResolver,
  type OutboundRefusal,
  type Resolver,
} from "../../infrastructure/security/outbound-url";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import type { CurrentUser } from "../auth";
import { encryptSecret } from "../../infrastructure/security/crypto";
import { newWebhookSecret } from "./secret";

import { WEBHOOK_EVENTS } from "~/lib/developer";

export { WEBHOOK_EVENTS };

// A tenant's webhook must not make Jumbe call into its own network (SSRF): the check is the one every
// address a tenant gives Jumbe goes through (infrastructure/security/outbound-url.ts, decision 099),
// with loopback allowed only under WEBHOOK_ALLOW_LOOPBACK (tests and local trials; production refuses
// the switch at start-up).
export { isForbiddenAddress, isForbiddenTarget, systemResolver, type Resolver };

/** A refusal of the shared check in a webhook's words. */
function webhookUrlMessage(reason: OutboundRefusal, host?: string) {
  switch (reason) {
    case "empty":
      return "Enter the URL that should receive the events.";
    case "too_long":
      return "The webhook URL is too long.";
    case "invalid":
      return "Enter a full URL, such as https://example.co.ke/jumbe/webhooks.";
    case "scheme":
      return env().production ? "The webhook URL must use https." : "The webhook URL must use https (or http outside production).";
    case "credentials":
      return "The webhook URL must not contain a user name or password.";
    case "unresolved":
      return `The host name ${host ?? ""} could not be resolved.`;
    case "private":
      return "The webhook URL must not point to a private, loopback or link-local address.";
  }
}

/**
 * Checks a webhook URL: https in production (http too elsewhere), no credentials, and a host whose
 * every address is public. Delivery checks again after its own DNS lookup, since a name can change.
 */
export async function checkWebhookUrl(
  raw: string,
  resolve: Resolver = systemResolver,
): Promise<{ ok: true; url: string } | { ok: false; message: string }> {
  const target = await resolveWebhookTarget(raw, resolve);
  return target.ok ? { ok: true, url: target.url } : target;
}

/**
 * The checks of checkWebhookUrl, answering the addresses that passed as well: delivery connects to
 * one of exactly these (never to a second lookup's answer), so a name cannot be rebound in between.
 */
export async function resolveWebhookTarget(
  raw: string,
  resolve: Resolver = systemResolver,
): Promise<{ ok: true; url: string; addresses: string[] } | { ok: false; message: string }> {
  const target = await resolveOutboundTarget(raw, {}, resolve);
  return target.ok ? target : { ok: false, message: webhookUrlMessage(target.reason, target.host) };
}

export async function webhookConfig(organizationId: string) {
  const [row] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.organizationId, organizationId)).limit(1);
  return row
    ? {
        url: row.url,
        events: row.events,
        updatedAt: row.updatedAt.toISOString(),
        secretCreatedAt: row.secretCreatedAt?.toISOString() ?? null,
        failingSince: row.failingSince?.toISOString() ?? null,
        disabledAt: row.disabledAt?.toISOString() ?? null,
      }
    : null;
}

export async function saveWebhookConfig(
  current: CurrentUser,
  input: { url: string; events: string[] },
  meta: RequestMeta,
  resolve?: Resolver,
) {
  const events = [...new Set(input.events)];
  if (!events.length) return { ok: false as const, message: "Choose at least one event." };
  if (events.some((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e)))
    return { ok: false as const, message: "Unknown webhook event." };
  const checked = await checkWebhookUrl(input.url, resolve);
  if (!checked.ok) return checked;
  const ordered = WEBHOOK_EVENTS.filter((e) => events.includes(e));
  // The first save makes the signing secret; saving again keeps it, and re-enables a disabled endpoint
  // (its owner has looked at it): deliveries start again from a clean record.
  await db()
    .insert(webhookEndpoints)
    .values({
      organizationId: current.organization.id,
      url: checked.url,
      events: ordered,
      updatedBy: current.user.id,
      secretEncrypted: encryptSecret(newWebhookSecret()),
      secretCreatedAt: sql`now()`,
    })
    .onConflictDoUpdate({
      target: webhookEndpoints.organizationId,
      set: {
        url: checked.url,
        events: ordered,
        updatedBy: current.user.id,
        updatedAt: sql`now()`,
        secretEncrypted: sql`coalesce(${webhookEndpoints.secretEncrypted}, excluded.secret_encrypted)`,
        secretCreatedAt: sql`coalesce(${webhookEndpoints.secretCreatedAt}, excluded.secret_created_at)`,
        failingSince: null,
        disabledAt: null,
      },
    });
  await recordActivity({
    organizationId: current.organization.id,
    userId: current.user.id,
    type: "settings",
    status: "success",
    action: "Webhook configuration saved",
    details: `${checked.url} (${ordered.join(", ")})`,
    meta,
  });
  return { ok: true as const, url: checked.url, events: ordered };
}
