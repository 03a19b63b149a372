import { href, Link } from "react-router";
import type { Route } from "./+types/campaigns";
import { requireUserWithPermission } from "~/.server/auth/guards";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card } from "~/components/ui/card";
import { MessageCenter } from "~/components/messaging/message-center";

export const meta: Route.MetaFunction = () => [{ title: "Campaigns | Message Center | Jumbe" }];

/** /messaging: the Campaigns tab. Campaigns arrive with their own issue; until then it says so, with no figures. */
export async function loader(args: Route.LoaderArgs) {
  await requireUserWithPermission(args, "messaging:view");
  return null;
}

export default function Campaigns() {
  return (
    <MessageCenter tab="campaigns">
      <Card>
        <h2 className="font-semibold text-slate-900">No campaigns yet</h2>
        <p className="mt-1 text-sm text-slate-600">
          Campaigns (a template sent to a segment of your contacts) are not available yet. Meanwhile, build your audience in{" "}
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
