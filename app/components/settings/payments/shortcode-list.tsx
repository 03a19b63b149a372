import { Form, href } from "react-router";
import type { ShortcodeView } from "~/.server/domains/payments";
import { AddressList } from "~/components/ui/address-list";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

const STATUS_WORDS = {
  untested: () => m.settings_payments_status_untested(),
  working: () => m.settings_payments_status_working(),
  failing: () => m.settings_payments_status_failing(),
};
const STATUS_TONES = { untested: "neutral", working: "success", failing: "danger" } as const;
const ENVIRONMENT_WORDS = {
  sandbox: () => m.settings_payments_env_sandbox(),
  production: () => m.settings_payments_env_production(),
};

/** "Paybill 600100" or "Till 5100001 · store 7100001". */
export function shortcodeNumber(shortcode: Pick<ShortcodeView, "kind" | "businessShortCode" | "tillNumber">) {
  return shortcode.kind === "till"
    ? m.settings_payments_number_till({ till: shortcode.tillNumber, store: shortcode.businessShortCode })
    : m.settings_payments_number_paybill({ number: shortcode.businessShortCode });
}

/** One shortcode: its name, number, environment and status; the buttons for whoever may change it. */
function ShortcodeItem({ shortcode, canManage }: { shortcode: ShortcodeView; canManage: boolean }) {
  const here = href("/settings/payments");
  return (
    <li className="rounded-lg border border-slate-200 p-4" data-testid="shortcode">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium break-words text-slate-900">{shortcode.label}</span>
        {shortcode.isDefault ? <Badge tone="brand">{m.settings_payments_default_badge()}</Badge> : null}
        <Badge tone={STATUS_TONES[shortcode.status]}>{STATUS_WORDS[shortcode.status]()}</Badge>
      </div>
      <p className="mt-1 text-sm text-slate-700">
        {shortcodeNumber(shortcode)} · {ENVIRONMENT_WORDS[shortcode.environment]()}
      </p>
      <p className="text-sm text-slate-500">{m.settings_payments_key_hint({ last: shortcode.consumerKeyHint })}</p>
      {shortcode.testedAt ? (
        <p className="text-sm text-slate-500">{m.settings_payments_tested_at({ when: formatWhen(shortcode.testedAt) })}</p>
      ) : null}
      {shortcode.status === "failing" && shortcode.statusDetail ? (
        <p className="mt-1 text-sm text-red-800" role="note">
          {shortcode.statusDetail}
        </p>
      ) : null}
      <details className="mt-2 text-sm">
        <summary className="cursor-pointer text-slate-700">{m.settings_payments_callbacks_title()}</summary>
        <p className="mt-1 text-slate-600">{m.settings_payments_callbacks_help()}</p>
        <AddressList
          className="mt-1 space-y-1"
          addresses={[
            [m.settings_payments_callback_stk(), shortcode.callbackUrls.stk],
            [m.settings_payments_callback_validation(), shortcode.callbackUrls.validation],
            [m.settings_payments_callback_confirmation(), shortcode.callbackUrls.confirmation],
          ]}
        />
      </details>
      {canManage ? (
        <div className="mt-3 flex flex-wrap gap-2">
          <Form method="post" action={here}>
            <input type="hidden" name="shortcode" value={shortcode.id} />
            <Button type="submit" name="intent" value="test" size="sm">
              {m.settings_payments_test()}
            </Button>
          </Form>
          {shortcode.isDefault ? null : (
            <Form method="post" action={here}>
              <input type="hidden" name="shortcode" value={shortcode.id} />
              <Button type="submit" name="intent" value="default" size="sm" variant="secondary">
                {m.settings_payments_make_default()}
              </Button>
            </Form>
          )}
          <ButtonLink to={`${here}?edit=${shortcode.id}`} size="sm" variant="secondary">
            {m.settings_payments_edit()}
          </ButtonLink>
          <ButtonLink to={`${here}?confirm=remove&shortcode=${shortcode.id}`} size="sm" variant="secondary">
            {m.settings_payments_remove()}
          </ButtonLink>
        </div>
      ) : null}
    </li>
  );
}

export function ShortcodeList({ shortcodes, canManage }: { shortcodes: ShortcodeView[]; canManage: boolean }) {
  if (!shortcodes.length) return <p className="mt-3 text-slate-600">{m.settings_payments_empty()}</p>;
  return (
    <ul className="mt-3 space-y-3" aria-label={m.settings_payments_list_title()}>
      {shortcodes.map((shortcode) => (
        <ShortcodeItem key={shortcode.id} shortcode={shortcode} canManage={canManage} />
      ))}
    </ul>
  );
}
