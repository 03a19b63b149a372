import { href } from "react-router";
import { useShellOpens } from "~/components/layout/shell-role";
import { Tabs } from "~/components/ui/tabs";

/**
 * The sections of Account Settings, each its own page: a section the role cannot open (by the
 * permission its route declares, read by the shell's loader) has no tab.
 */
export const SETTINGS_SECTIONS: readonly { id: string; label: string; to: string }[] = [
  { id: "organisation", label: "Organisation", to: href("/settings/organisation") },
  { id: "team", label: "Team", to: href("/settings/team") },
  { id: "notifications", label: "Notifications", to: href("/settings/notifications") },
  { id: "security", label: "Security", to: href("/settings/security") },
  { id: "account", label: "Account", to: href("/settings/account") },
];

export function SettingsHeader({ current }: { current: string }) {
  const opens = useShellOpens();
  const sections = SETTINGS_SECTIONS.filter((s) => opens.includes(s.to));
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
