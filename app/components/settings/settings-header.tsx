import { useShellOpens } from "~/components/layout/shell-role";
import { Tabs } from "~/components/ui/tabs";
import { SETTINGS_SECTIONS } from "~/lib/settings-sections";
import { PageTitle } from "~/components/ui/page-title";

export function SettingsHeader({ current }: { current: string }) {
  const opens = useShellOpens();
  const sections = SETTINGS_SECTIONS.filter((s) => opens.includes(s.to));
  return (
    <div className="space-y-4">
      <div>
        <PageTitle>Account Settings</PageTitle>
        <p className="text-slate-600">Your organisation, its team, and how you sign in.</p>
      </div>
      <Tabs label="Settings sections" items={sections.map((s) => ({ label: s.label, to: s.to, current: s.id === current }))} />
    </div>
  );
}
