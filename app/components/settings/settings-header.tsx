import { href } from "react-router";
import { useShellRole } from "~/components/layout/shell-role";
import { Tabs } from "~/components/ui/tabs";
import { can, type Permission } from "~/lib/permissions";

/**
 * The sections of Account Settings, each its own page, and what opening it needs (the same
 * permission as its entry in PAGE_PERMISSIONS): a section the role cannot open has no tab.
 */
const SECTIONS: readonly { id: string; label: string; to: string; permission: Permission }[] = [
  { id: "organisation", label: "Organisation", to: href("/settings/organisation"), permission: "organization:manage" },
  { id: "team", label: "Team", to: href("/settings/team"), permission: "team:view" },
  { id: "notifications", label: "Notifications", to: href("/settings/notifications"), permission: "notifications:manage" },
  { id: "security", label: "Security", to: href("/settings/security"), permission: "account:manage" },
  { id: "account", label: "Account", to: href("/settings/account"), permission: "organization:close" },
];

export function SettingsHeader({ current }: { current: string }) {
  const role = useShellRole();
  const sections = SECTIONS.filter((s) => can(role, s.permission));
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Account Settings</h1>
        <p className="text-slate-600">Your organisation, its team, and how you sign in.</p>
      </div>
      <Tabs label="Settings sections" items={sections.map((s) => ({ label: s.label, to: s.to, current: s.id === current }))} />
    </div>
  );
}
