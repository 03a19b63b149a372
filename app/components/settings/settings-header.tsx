import { href } from "react-router";
import { Tabs } from "~/components/ui/tabs";

/** The sections of Account Settings, each its own page (issue 15 adds them one by one). */
const SECTIONS = [
  { id: "team", label: "Team", to: href("/settings/team") },
  { id: "security", label: "Security", to: href("/settings/security") },
] as const;

export function SettingsHeader({ current }: { current: (typeof SECTIONS)[number]["id"] }) {
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Account Settings</h1>
        <p className="text-slate-600">Your organisation's team, and where you are signed in.</p>
      </div>
      <Tabs label="Settings sections" items={SECTIONS.map((s) => ({ label: s.label, to: s.to, current: s.id === current }))} />
    </div>
  );
}
