import { useShellOpens } from "~/components/layout/shell-role";
import { Tabs } from "~/components/ui/tabs";
import { SETTINGS_SECTIONS } from "~/lib/settings-sections";

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
