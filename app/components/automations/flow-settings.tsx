import { Form } from "react-router";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, TextareaField } from "~/components/ui/field";
import { FLOW_IDLE_MAX, FLOW_IDLE_MIN, FLOW_NAME_MAX, FLOW_TEXT_MAX } from "~/lib/schemas/flows";
import { m } from "~/paraglide/messages";

/** A flow's settings (its name, how long it waits, what it says then): the form again as sent when refused at a field. */
export function FlowSettingsCard({
  flow,
  canManage,
  values: settingsValues,
  errors: settingsErrors,
}: {
  flow: { name: string; idleMinutes: number; idleText: string };
  canManage: boolean;
  values: Record<string, string> | null;
  errors: Record<string, string[]>;
}) {
  return (
    <Card>
      <CardHeader title={m.automations_flows_settings_title()} description={m.automations_flows_settings_description()} />
      <Form method="post" className="mt-3 max-w-xl space-y-4">
        <Field
          name="name"
          label={m.automations_flows_field_name()}
          defaultValue={settingsValues?.name ?? flow.name}
          maxLength={FLOW_NAME_MAX}
          errors={settingsErrors.name}
          disabled={!canManage}
        />
        <Field
          name="idleMinutes"
          type="number"
          min={FLOW_IDLE_MIN}
          max={FLOW_IDLE_MAX}
          label={m.automations_flows_field_idle_minutes()}
          defaultValue={settingsValues?.idleMinutes ?? String(flow.idleMinutes)}
          errors={settingsErrors.idleMinutes}
          disabled={!canManage}
        />
        <TextareaField
          name="idleText"
          label={m.automations_flows_field_idle_text()}
          hint={m.automations_flows_field_idle_text_hint()}
          defaultValue={settingsValues?.idleText ?? flow.idleText}
          maxLength={FLOW_TEXT_MAX}
          errors={settingsErrors.idleText}
          disabled={!canManage}
        />
        {canManage ? (
          <Button type="submit" name="intent" value="settings">
            {m.automations_flows_save_settings()}
          </Button>
        ) : null}
      </Form>
    </Card>
  );
}
