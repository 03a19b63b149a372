import type { ReactNode } from "react";
import { href } from "react-router";
import { Tabs } from "~/components/ui/tabs";
import { PageTitle } from "~/components/ui/page-title";
import { m } from "~/paraglide/messages";

export type MessageCenterTab = "campaigns" | "contacts" | "broadcasts";

/** The Message Center's heading and its three tabs (spec: Campaigns, Contacts, Broadcast History), each a URL. */
export function MessageCenter({ tab, actions, children }: { tab: MessageCenterTab; actions?: ReactNode; children: ReactNode }) {
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <PageTitle>{m.messaging_center_title()}</PageTitle>
          <p className="text-slate-600">{m.messaging_center_description()}</p>
        </div>
        {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
      </div>
      <Tabs
        label={m.messaging_center_title()}
        items={[
          { label: m.messaging_center_tab_campaigns(), to: href("/messaging"), current: tab === "campaigns" },
          { label: m.messaging_center_tab_contacts(), to: href("/messaging/contacts"), current: tab === "contacts" },
          { label: m.messaging_center_tab_broadcasts(), to: href("/messaging/broadcasts"), current: tab === "broadcasts" },
        ]}
      />
      {children}
    </div>
  );
}
