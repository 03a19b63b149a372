import { Link } from "~/components/ui/link";
import { Eye, EyeOff, RefreshCw } from "~/components/ui/icons";
import { ButtonLink } from "~/components/ui/button";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { CopyButton } from "~/components/ui/copy-button";
import { formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

// Code, not words: the header a receiver checks, and a secret's masked form.
const SIGNATURE_HEADER = "webhook-signature";
const MASKED_SECRET = `whsec_${"•".repeat(24)}`;

interface SigningSecretProps {
  secret: string | null;
  createdAt: string | null;
  confirmRotate: boolean;
}

/** The signing secret: masked until asked for (each read logged), rotated after a confirmation. */
export function SigningSecret({ secret, createdAt, confirmRotate }: SigningSecretProps) {
  return (
    <div className="mt-6 border-t border-slate-100 pt-4">
      <h3 id="signing-secret" className="font-semibold text-slate-900">
        {m.developers_secret_heading()}
      </h3>
      <p className="mt-1 text-sm text-slate-600">
        {m.developers_secret_check_before()}
        <code className="rounded bg-slate-100 px-1">{SIGNATURE_HEADER}</code>
        {m.developers_secret_check_after()}
      </p>
      <div className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-center">
        {secret ? (
          <input
            readOnly
            value={secret}
            aria-label={m.developers_secret_heading()}
            data-testid="webhook-secret"
            className="w-full rounded-lg border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm sm:flex-1"
          />
        ) : (
          <code className="w-full rounded-lg border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm sm:flex-1">
            {MASKED_SECRET}
          </code>
        )}
        <div className="flex gap-2">
          {secret ? (
            <>
              <ButtonLink to="/developers#signing-secret" variant="secondary">
                <EyeOff className="size-4" aria-hidden /> {m.developers_secret_hide()}
              </ButtonLink>
              <CopyButton text={secret} label={m.developers_secret_copy()} />
            </>
          ) : (
            <ButtonLink to="/developers?secret=1#signing-secret" variant="secondary">
              <Eye className="size-4" aria-hidden /> {m.developers_secret_show()}
            </ButtonLink>
          )}
          <Link
            to="/developers?confirm=rotate-secret#signing-secret"
            className="inline-flex items-center gap-2 rounded-lg border border-red-200 px-3 py-2 text-sm font-semibold text-red-700 hover:bg-red-50"
          >
            <RefreshCw className="size-4" aria-hidden /> {m.developers_secret_rotate()}
          </Link>
        </div>
      </div>
      {createdAt ? <p className="mt-2 text-xs text-slate-500">{m.developers_secret_created({ when: formatWhen(createdAt) })}</p> : null}
      {confirmRotate ? (
        <ConfirmPanel
          title={m.developers_secret_rotate_title()}
          intent="webhook-secret-rotate"
          confirmLabel={m.developers_secret_rotate_confirm()}
          cancelTo="/developers#signing-secret"
        >
          {m.developers_secret_rotate_body()}
        </ConfirmPanel>
      ) : null}
    </div>
  );
}
