import { href } from "react-router";
import type { IntegrationCard } from "~/.server/domains/integrations/page";
import type { IntegrationLogo } from "~/.server/domains/integrations/catalogue";
import {
  BarChart3,
  Building2,
  CreditCard,
  FileText,
  Mail,
  MessageCircle,
  MessageSquare,
  Tag,
  Users,
  Zap,
  type IconComponent,
} from "~/components/ui/icons";
import { Badge } from "~/components/ui/badge";
import { ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { TextLink } from "~/components/ui/text-link";
import { dialogHref } from "~/lib/dialog-href";
import { formatNumber, formatWhen } from "~/lib/dates";
import { categoryWords, complexityWords, statusWords } from "~/lib/integrations";
import { m } from "~/paraglide/messages";

const LOGOS: Record<IntegrationLogo, IconComponent> = {
  users: Users,
  building: Building2,
  cart: CreditCard,
  tag: Tag,
  sheet: FileText,
  mail: Mail,
  support: MessageSquare,
  chat: MessageCircle,
  zap: Zap,
};

/** Connectors with a settings page of their own, linked from their card once connected. */
const SETTINGS_PAGES: Partial<Record<string, { to: string; label: () => string; ariaLabel?: () => string }>> = {
  hubspot: { to: href("/integrations/hubspot"), label: () => m.hubspot_settings_link(), ariaLabel: () => m.hubspot_settings_link_label() },
  "google-sheets": { to: href("/integrations/google-sheets"), label: () => m.sheets_settings_link() },
  shopify: { to: href("/integrations/shopify"), label: () => m.shopify_settings_link() },
};

const TONE = { connected: "success", available: "info", "coming-soon": "neutral" } as const;

/** One integration of the catalogue: what it does, how hard it is to set up, and its state here. */
export function IntegrationCardView({ card, canManage, search }: { card: IntegrationCard; canManage: boolean; search: URLSearchParams }) {
  const Logo = LOGOS[card.logo] ?? BarChart3;
  const titleId = `integration-${card.id}`;
  return (
    <Card as="article" className="flex w-full flex-col" aria-labelledby={titleId} data-integration={card.id}>
      <div className="flex items-start gap-3">
        <span className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-brand-50 text-brand-700">
          <Logo className="size-5" aria-hidden />
        </span>
        <div className="min-w-0 flex-1">
          <h2 id={titleId} className="font-semibold">
            {card.name}
          </h2>
          <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-500">
            {categoryWords(card.category)}
            <Badge tone={TONE[card.status]}>{statusWords(card.status)}</Badge>
          </p>
        </div>
      </div>
      <p className="mt-3 text-sm text-slate-700">{card.description}</p>
      <ul className="mt-3 list-disc space-y-1 ps-5 text-sm text-slate-600" aria-label={m.integrations_features_label({ name: card.name })}>
        {card.features.map((feature) => (
          <li key={feature}>{feature}</li>
        ))}
      </ul>
      <p className="mt-3 text-xs text-slate-500">{m.integrations_complexity({ complexity: complexityWords(card.setupComplexity) })}</p>
      {card.connection ? <ConnectionFacts connection={card.connection} /> : null}
      {card.connection && card.id === "hubspot" ? <HubspotFacts counts={card.connection.counts} /> : null}
      {card.hooks && card.hooks.count > 0 ? <HookFacts hooks={card.hooks} /> : null}
      <div className="mt-auto flex flex-wrap items-center gap-2 pt-4">
        {card.status === "coming-soon" ? (
          <p className="text-sm text-slate-500">{m.integrations_coming_soon_note()}</p>
        ) : (
          <>
            <ButtonLink
              to={dialogHref(search, `connect-${card.id}`)}
              variant={card.status === "connected" ? "secondary" : "primary"}
              size="sm"
              preventScrollReset
              aria-label={
                card.status === "connected"
                  ? m.integrations_details_label({ name: card.name })
                  : m.integrations_connect_label({ name: card.name })
              }
            >
              {card.status === "connected" ? m.integrations_details() : m.integrations_connect()}
            </ButtonLink>
            {card.status === "connected" && canManage ? (
              <ButtonLink
                to={`?${new URLSearchParams({ ...Object.fromEntries(search), confirm: "disconnect", integration: card.id })}`}
                variant="secondary"
                size="sm"
                aria-label={m.integrations_disconnect_label({ name: card.name })}
              >
                {m.integrations_disconnect()}
              </ButtonLink>
            ) : null}
            {card.status === "connected" && SETTINGS_PAGES[card.id] ? (
              <span className="text-sm">
                <TextLink to={SETTINGS_PAGES[card.id]!.to} weight="medium" aria-label={SETTINGS_PAGES[card.id]!.ariaLabel?.()}>
                  {SETTINGS_PAGES[card.id]!.label()}
                </TextLink>
              </span>
            ) : null}
            {card.connect === "rest-hooks" ? (
              <span className="text-sm">
                <TextLink to={href("/developers")} weight="medium">
                  {m.integrations_hooks_developers()}
                </TextLink>
              </span>
            ) : null}
          </>
        )}
      </div>
    </Card>
  );
}

function ConnectionFacts({ connection }: { connection: NonNullable<IntegrationCard["connection"]> }) {
  return (
    <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 rounded-lg bg-slate-50 p-3 text-sm">
      <dt className="text-slate-500">{m.integrations_account()}</dt>
      <dd className="min-w-0 break-words">{connection.accountLabel ?? "—"}</dd>
      <dt className="text-slate-500">{m.integrations_health()}</dt>
      <dd>
        <Badge tone={connection.health === "healthy" ? "success" : "danger"}>
          {connection.health === "healthy" ? m.integrations_health_healthy() : m.integrations_health_unhealthy()}
        </Badge>
      </dd>
      <dt className="text-slate-500">{m.integrations_last_sync()}</dt>
      <dd>{connection.lastSyncAt ? formatWhen(connection.lastSyncAt) : m.integrations_never()}</dd>
      {connection.lastError ? (
        <>
          <dt className="text-slate-500">{m.integrations_last_error()}</dt>
          <dd className="min-w-0 break-words text-red-800">
            {connection.lastError}
            {connection.lastErrorAt ? <span className="block text-xs text-slate-500">{formatWhen(connection.lastErrorAt)}</span> : null}
          </dd>
        </>
      ) : null}
    </dl>
  );
}

/** HubSpot's counts (decision 083): contacts linked both ways, messages logged on them. */
function HubspotFacts({ counts }: { counts: Record<string, number> }) {
  return (
    <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 rounded-lg bg-slate-50 p-3 text-sm">
      <dt className="text-slate-500">{m.hubspot_count_contacts()}</dt>
      <dd className="tabular-nums">{formatNumber(counts.contacts ?? 0)}</dd>
      <dt className="text-slate-500">{m.hubspot_count_messages()}</dt>
      <dd className="tabular-nums">{formatNumber(counts.messages ?? 0)}</dd>
    </dl>
  );
}

function HookFacts({ hooks }: { hooks: NonNullable<IntegrationCard["hooks"]> }) {
  return (
    <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 rounded-lg bg-slate-50 p-3 text-sm">
      <dt className="text-slate-500">{m.integrations_hooks_subscriptions()}</dt>
      <dd className="tabular-nums">{formatNumber(hooks.count)}</dd>
      <dt className="text-slate-500">{m.integrations_hooks_last_delivery()}</dt>
      <dd>
        {hooks.lastDeliveryAt
          ? m.integrations_hooks_last_delivery_value({
              when: formatWhen(hooks.lastDeliveryAt),
              status: hooks.lastDeliveryStatus === null ? m.integrations_hooks_no_answer() : String(hooks.lastDeliveryStatus),
            })
          : m.integrations_never()}
      </dd>
    </dl>
  );
}
