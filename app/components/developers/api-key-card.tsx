import { href } from "react-router";
import { Link } from "~/components/ui/link";
import { Eye, EyeOff, KeyRound, RefreshCw } from "~/components/ui/icons";
import { Card } from "~/components/ui/card";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { CopyButton } from "~/components/ui/copy-button";
import { formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

// Code, not words: the same in every language.
const AUTHORIZATION_HEADER = "Authorization: Bearer <key>";

const LINK_CLASS =
  "inline-flex items-center gap-2 rounded-lg border border-slate-300 px-3 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-50";

interface ApiKeyCardProps {
  /** The whole key, only when asked for (?reveal=1). */
  apiKey: string | null;
  prefix: string | null;
  lastUsedAt: string | null;
  confirmRegenerate: boolean;
}

/** The live API key: masked until shown, regenerated after a confirmation. */
export function ApiKeyCard({ apiKey, prefix, lastUsedAt, confirmRegenerate }: ApiKeyCardProps) {
  return (
    <Card aria-labelledby="key-heading">
      <h2 id="key-heading" className="flex items-center gap-2 text-lg font-semibold">
        <KeyRound className="size-5 text-brand-600" aria-hidden /> {m.developers_key_heading()}
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        {m.developers_key_send_before()}
        <code className="rounded bg-slate-100 px-1">{AUTHORIZATION_HEADER}</code>
        {m.developers_key_send_after()}
      </p>
      <div className="mt-4 flex flex-col gap-3 sm:flex-row sm:items-center">
        {apiKey ? (
          <input
            readOnly
            value={apiKey}
            aria-label={m.developers_key_label()}
            data-testid="api-key"
            className="w-full rounded-lg border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm sm:flex-1"
          />
        ) : (
          <code
            data-testid="api-key-masked"
            className="w-full rounded-lg border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm sm:flex-1"
          >
            {prefix ? `${prefix}${"•".repeat(24)}` : m.developers_key_none()}
          </code>
        )}
        <div className="flex gap-2">
          {apiKey ? (
            <>
              <Link to={href("/developers")} className={LINK_CLASS}>
                <EyeOff className="size-4" aria-hidden /> {m.developers_key_hide()}
              </Link>
              <CopyButton text={apiKey} label={m.developers_key_copy()} />
            </>
          ) : (
            <Link to="/developers?reveal=1" className={LINK_CLASS}>
              <Eye className="size-4" aria-hidden /> {m.developers_key_show()}
            </Link>
          )}
          {/* Nothing to regenerate until a key exists (Show creates the first one). */}
          {prefix ? (
            <Link
              to="/developers?confirm=regenerate"
              className="inline-flex items-center gap-2 rounded-lg border border-red-200 px-3 py-2 text-sm font-semibold text-red-700 hover:bg-red-50"
            >
              <RefreshCw className="size-4" aria-hidden /> {m.developers_key_regenerate()}
            </Link>
          ) : null}
        </div>
      </div>
      {lastUsedAt ? <p className="mt-2 text-xs text-slate-500">{m.developers_key_last_used({ when: formatWhen(lastUsedAt) })}</p> : null}
      {confirmRegenerate && prefix ? (
        <ConfirmPanel
          title={m.developers_key_regenerate_title()}
          intent="regenerate"
          confirmLabel={m.developers_key_regenerate_confirm()}
          cancelTo={href("/developers")}
        >
          {m.developers_key_regenerate_body()}
        </ConfirmPanel>
      ) : null}
    </Card>
  );
}
