import { href, Link } from "react-router";
import { AlertTriangle } from "~/components/ui/icons";
import { zoneWords } from "~/lib/dates";

/**
 * Every signed-in page of a closing organisation says so, to every member (decision 032): when its
 * data will be erased, and who can stop it. The owner gets the link to reopen it.
 */
export function ClosingBanner({ eraseOn, canReopen }: { eraseOn: string; canReopen: boolean }) {
  return (
    <div role="status" className="mb-4 flex gap-3 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900">
      <AlertTriangle className="mt-0.5 size-5 shrink-0 text-red-600" aria-hidden />
      <p>
        <strong>This organisation is closing.</strong> Nothing is sent, and its data will be erased on {eraseOn} ({zoneWords()}).{" "}
        {canReopen ? (
          <>
            You can reopen it in{" "}
            <Link to={href("/settings/account")} className="font-semibold underline">
              Account Settings
            </Link>
            .
          </>
        ) : (
          "Its owner can reopen it in Account Settings."
        )}
      </p>
    </div>
  );
}
