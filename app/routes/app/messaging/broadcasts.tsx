import { href, Link } from "react-router";
import type { Route } from "./+types/broadcasts";
import { requireUserWithPermission } from "~/.server/auth/guards";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card } from "~/components/ui/card";
import { MessageCenter } from "~/components/messaging/message-center";

export const meta: Route.MetaFunction = () => [{ title: "Broadcast History | Message Center | Jumbe" }];

/** /messaging/broadcasts: Broadcast History. Broadcasts arrive with the campaigns issue; until then it says so, with no figures. */
export async function loader(args: Route.LoaderArgs) {
  await requireUserWithPermission(args, "messaging:view");
  return null;
}

export default function Broadcasts() {
  return (
    <MessageCenter tab="broadcasts">
      <Card>
        <h2 className="font-semibold text-slate-900">No broadcasts yet</h2>
        <p className="mt-1 text-sm text-slate-600">
          Every broadcast and campaign you send will be listed here with its delivery figures. Sending broadcasts is not available yet.
          Meanwhile, build your audience in{" "}
          <Link to={href("/messaging/contacts")} className="font-semibold text-brand-700 underline">
            Contacts
          </Link>
          .
        </p>
      </Card>
    </MessageCenter>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
