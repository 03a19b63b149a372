import { href } from "react-router";
import { Link } from "~/components/ui/link";
import { AlertTriangle } from "~/components/ui/icons";
import { zoneWords } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/**
 * Every signed-in page of a closing organisation says so, to every member (decision 032): when its
 * data will be erased, and who can stop it. The owner gets the link to reopen it.
 */
export function ClosingBanner({ eraseOn, canReopen }: { eraseOn: string; canReopen: boolean }) {
  return (
    <div role="status" className="mb-4 flex gap-3 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900">
      <AlertTriangle className="mt-0.5 size-5 shrink-0 text-red-600" aria-hidden />
      <p>
        <strong>{m.app_closing_title()}</strong> {m.app_closing_body({ date: eraseOn, zone: zoneWords() })}{" "}
        {canReopen ? (
          <>
            {m.app_closing_reopen_before()}{" "}
            <Link to={href("/settings/account")} className="font-semibold underline">
              {m.app_shell_account_settings()}
            </Link>
            {m.app_closing_reopen_after()}
          </>
        ) : (
          m.app_closing_owner_reopen()
        )}
      </p>
    </div>
  );
}
