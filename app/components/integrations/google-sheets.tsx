import { Form } from "react-router";
import type { sheetsSettings } from "~/.server/domains/integrations/google-sheets/settings";
import { Badge } from "~/components/ui/badge";
import { Button, buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { CheckboxField, SelectField } from "~/components/ui/field";
import { formatNumber, formatWhen } from "~/lib/dates";
import { SHEETS_SCHEDULES, type SheetsSchedule } from "~/lib/google-sheets";
import { m } from "~/paraglide/messages";

const SCHEDULE_WORDS: Record<SheetsSchedule, () => string> = {
  off: m.sheets_schedule_off,
  hourly: m.sheets_schedule_hourly,
  daily: m.sheets_schedule_daily,
};

const STATE_WORDS = { idle: m.sheets_state_idle, queued: m.sheets_state_queued, running: m.sheets_state_running };

/** The export card of Google Sheets' page: where it stands, what is exported and when, "Export now". */
export function SheetsExportCard({ settings, canManage }: { settings: Awaited<ReturnType<typeof sheetsSettings>>; canManage: boolean }) {
  return (
    <Card as="section" aria-labelledby="sheets-export" className="space-y-4">
      <h2 id="sheets-export" className="font-semibold">
        {m.sheets_export_heading()}
      </h2>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 rounded-lg bg-slate-50 p-3 text-sm" data-testid="sheets-export-facts">
        <dt className="text-slate-500">{m.sheets_state()}</dt>
        <dd>
          <Badge tone={settings.exportState === "idle" ? "neutral" : "info"}>{STATE_WORDS[settings.exportState]()}</Badge>
        </dd>
        <dt className="text-slate-500">{m.sheets_last_export()}</dt>
        <dd>
          {settings.lastExportAt
            ? m.sheets_last_export_value({ when: formatWhen(settings.lastExportAt), rows: formatNumber(settings.lastExportRows ?? 0) })
            : m.integrations_never()}
        </dd>
        <dt className="text-slate-500">{m.sheets_rows_exported()}</dt>
        <dd className="tabular-nums">{formatNumber(settings.rowsExported)}</dd>
        {settings.schedule !== "off" && settings.nextRunAt ? (
          <>
            <dt className="text-slate-500">{m.sheets_next_run()}</dt>
            <dd>{formatWhen(settings.nextRunAt)}</dd>
          </>
        ) : null}
        {settings.lastError ? (
          <>
            <dt className="text-slate-500">{m.integrations_last_error()}</dt>
            <dd className="min-w-0 break-words text-red-800">
              {settings.lastError}
              {settings.lastErrorAt ? <span className="block text-xs text-slate-500">{formatWhen(settings.lastErrorAt)}</span> : null}
            </dd>
          </>
        ) : null}
      </dl>
      {canManage ? (
        <>
          <Form method="post" className="space-y-3">
            <input type="hidden" name="intent" value="settings" />
            <fieldset className="space-y-2">
              <legend className="text-sm font-medium text-slate-700">{m.sheets_what_label()}</legend>
              <CheckboxField label={m.sheets_export_contacts()} name="contacts" defaultChecked={settings.exportContacts} />
              <CheckboxField label={m.sheets_export_messages()} name="messages" defaultChecked={settings.exportMessages} />
            </fieldset>
            <SelectField
              label={m.sheets_schedule_label()}
              name="schedule"
              defaultValue={settings.schedule}
              options={SHEETS_SCHEDULES.map((value) => ({ value, label: SCHEDULE_WORDS[value]() }))}
            />
            <Button type="submit" size="sm" variant="secondary">
              {m.sheets_save()}
            </Button>
          </Form>
          <Form method="post">
            <input type="hidden" name="intent" value="export" />
            <Button type="submit" size="sm" disabled={!settings.spreadsheetId}>
              {m.sheets_export_now()}
            </Button>
          </Form>
        </>
      ) : null}
    </Card>
  );
}

/**
 * "Choose a spreadsheet from Google Drive": drawn hidden, shown by app/assets/google-picker.js, which
 * opens the Picker and puts the chosen file's id in its form's spreadsheet field. Without JavaScript,
 * a sentence instead.
 */
export function PickerControl() {
  return (
    <div className="space-y-1" data-picker-control>
      <button type="button" hidden className={buttonClass("secondary", "sm")} data-picker-button>
        {m.sheets_picker_button()}
      </button>
      <noscript>
        <p className="text-sm text-amber-800">{m.sheets_picker_no_js()}</p>
      </noscript>
      <p
        className="text-sm break-words text-slate-600"
        aria-live="polite"
        data-picker-status
        data-opening={m.sheets_picker_opening()}
        data-chosen={m.sheets_picker_chosen({ name: "{name}" })}
        data-cancelled={m.sheets_picker_cancelled()}
        data-failed={m.sheets_picker_failed()}
      />
    </div>
  );
}
