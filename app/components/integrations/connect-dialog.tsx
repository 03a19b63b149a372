import { Form, href } from "react-router";
import type { IntegrationCard } from "~/.server/domains/integrations/page";
import { Button } from "~/components/ui/button";
import { Field } from "~/components/ui/field";
import { Notice } from "~/components/ui/notice";
import { TextLink } from "~/components/ui/text-link";
import { complexityWords } from "~/lib/integrations";
import { m } from "~/paraglide/messages";

/** The connect modal's content: how the integration connects, and the button that starts it. */
export function ConnectDialogBody({ card, canManage }: { card: IntegrationCard; canManage: boolean }) {
  return (
    <div className="space-y-4 text-sm">
      <p className="text-slate-700">{card.description}</p>
      <ul className="list-disc space-y-1 ps-5 text-slate-600" aria-label={m.integrations_features_label({ name: card.name })}>
        {card.features.map((feature) => (
          <li key={feature}>{feature}</li>
        ))}
      </ul>
      <p className="text-slate-500">{m.integrations_complexity({ complexity: complexityWords(card.setupComplexity) })}</p>
      {card.status === "coming-soon" ? (
        <Notice tone="warning">{m.integrations_coming_soon_refused({ name: card.name })}</Notice>
      ) : card.connect === "rest-hooks" ? (
        <RestHooksHowTo />
      ) : !card.installed ? (
        <Notice tone="warning">{m.integrations_connector_missing({ name: card.name })}</Notice>
      ) : !canManage ? (
        <Notice>{m.integrations_read_only()}</Notice>
      ) : (
        <Form method="post" action={href("/integrations")} className="space-y-3">
          <input type="hidden" name="integration" value={card.id} />
          {card.asks.includes("shop") ? (
            <Field label={m.integrations_shop_label()} name="shop" required hint={m.integrations_shop_hint()} autoComplete="off" />
          ) : null}
          <p className="text-slate-600">
            {card.status === "connected"
              ? m.integrations_reconnect_note({ name: card.name })
              : m.integrations_connect_note({ name: card.name })}
          </p>
          <Button type="submit" name="intent" value="connect" pendingText={m.integrations_connecting()}>
            {card.status === "connected" ? m.integrations_reconnect({ name: card.name }) : m.integrations_continue({ name: card.name })}
          </Button>
        </Form>
      )}
    </div>
  );
}

/** Connect a provider again from another page (the Shopify page's reconnect hint, decision 147): the connect form above, prefilled. */
export function ReconnectForm({ integration, shop, label }: { integration: string; shop?: string; label: string }) {
  return (
    <Form method="post" action={href("/integrations")}>
      <input type="hidden" name="integration" value={integration} />
      {shop ? <input type="hidden" name="shop" value={shop} /> : null}
      <Button type="submit" size="sm" name="intent" value="connect" pendingText={m.integrations_connecting()}>
        {label}
      </Button>
    </Form>
  );
}

// The API's own paths: the same in every language.
const SUBSCRIBE = "POST /api/v1/hooks";
const UNSUBSCRIBE = "DELETE /api/v1/hooks/{id}";
const SEND = "POST /api/v1/messages";

function RestHooksHowTo() {
  return (
    <div className="space-y-2 text-slate-700">
      <p>{m.integrations_hooks_how()}</p>
      <ul className="list-disc space-y-1 ps-5">
        <li>
          <code>{SUBSCRIBE}</code> {m.integrations_hooks_subscribe()}
        </li>
        <li>
          <code>{UNSUBSCRIBE}</code> {m.integrations_hooks_unsubscribe()}
        </li>
        <li>
          <code>{SEND}</code> {m.integrations_hooks_send()}
        </li>
      </ul>
      <p>
        <TextLink to={href("/developers/api/:operation", { operation: "subscribeHook" })} weight="semibold">
          {m.integrations_hooks_reference()}
        </TextLink>
      </p>
    </div>
  );
}
