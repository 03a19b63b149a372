import type { ReactNode } from "react";
import { href } from "react-router";
import { Tabs } from "~/components/ui/tabs";
import { PageTitle } from "~/components/ui/page-title";

export type MessageCenterTab = "campaigns" | "contacts" | "broadcasts";

/** The Message Center's heading and its three tabs (spec: Campaigns, Contacts, Broadcast History), each a URL. */
export function MessageCenter({ tab, actions, children }: { tab: MessageCenterTab; actions?: ReactNode; children: ReactNode }) {
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <PageTitle>Message Center</PageTitle>
          <p className="text-slate-600">Campaigns, contacts and broadcast history.</p>
        </div>
        {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
      </div>
      <Tabs
        label="Message Center"
        items={[
          { label: "Campaigns", to: href("/messaging"), current: tab === "campaigns" },
          { label: "Contacts", to: href("/messaging/contacts"), current: tab === "contacts" },
          { label: "Broadcast History", to: href("/messaging/broadcasts"), current: tab === "broadcasts" },
        ]}
      />
      {children}
    </div>
  );
}
