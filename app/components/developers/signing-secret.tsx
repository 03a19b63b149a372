import { Link } from "react-router";
import { Eye, EyeOff, RefreshCw } from "~/components/ui/icons";
import { ButtonLink } from "~/components/ui/button";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { CopyButton } from "~/components/ui/copy-button";
import { formatWhen } from "~/lib/dates";

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
        Signing secret
      </h3>
      <p className="mt-1 text-sm text-slate-600">
        Check each request&apos;s <code className="rounded bg-slate-100 px-1">webhook-signature</code> header with it. Keep it secret.
      </p>
      <div className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-center">
        {secret ? (
          <input
            readOnly
            value={secret}
            aria-label="Signing secret"
            data-testid="webhook-secret"
            className="w-full rounded-lg border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm sm:flex-1"
          />
        ) : (
          <code className="w-full rounded-lg border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm sm:flex-1">
            whsec_{"•".repeat(24)}
          </code>
        )}
        <div className="flex gap-2">
          {secret ? (
            <>
              <ButtonLink to="/developers#signing-secret" variant="secondary">
                <EyeOff className="size-4" aria-hidden /> Hide secret
              </ButtonLink>
              <CopyButton text={secret} label="Copy secret" />
            </>
          ) : (
            <ButtonLink to="/developers?secret=1#signing-secret" variant="secondary">
              <Eye className="size-4" aria-hidden /> Show secret
            </ButtonLink>
          )}
          <Link
            to="/developers?confirm=rotate-secret#signing-secret"
            className="inline-flex items-center gap-2 rounded-lg border border-red-200 px-3 py-2 text-sm font-semibold text-red-700 hover:bg-red-50"
          >
            <RefreshCw className="size-4" aria-hidden /> Rotate
          </Link>
        </div>
      </div>
      {createdAt ? <p className="mt-2 text-xs text-slate-500">Created {formatWhen(createdAt)}</p> : null}
      {confirmRotate ? (
        <ConfirmPanel
          title="Rotate the signing secret?"
          intent="webhook-secret-rotate"
          confirmLabel="Yes, rotate the secret"
          cancelTo="/developers#signing-secret"
        >
          A new secret signs every delivery from now on. The current one also signs for 24 hours, so there is time to give your receiver the
          new one.
        </ConfirmPanel>
      ) : null}
    </div>
  );
}
