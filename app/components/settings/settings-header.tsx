import { useShellOpens } from "~/components/layout/shell-role";
import { Tabs } from "~/components/ui/tabs";
import { SETTINGS_SECTIONS } from "~/lib/settings-sections";
import { PageTitle } from "~/components/ui/page-title";
import { m } from "~/paraglide/messages";

export function SettingsHeader({ current }: { current: string }) {
  const opens = useShellOpens();
  const sections = SETTINGS_SECTIONS.filter((s) => opens.includes(s.to));
  return (
    <div className="space-y-4">
      <div>
        <PageTitle>{m.settings_title()}</PageTitle>
        <p className="text-slate-600">{m.settings_intro()}</p>
      </div>
      <Tabs label={m.settings_sections_label()} items={sections.map((s) => ({ label: s.label, to: s.to, current: s.id === current }))} />
    </div>
  );
}
