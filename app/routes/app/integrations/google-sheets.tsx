import { data, Form, href } from "react-router";
import type { Route } from "./+types/google-sheets";
import * as z from "zod/mini";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction, actorOf } from "~/.server/domains/auth/form-actions";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalToast } from "~/.server/infrastructure/http/refusal-reply";
import { unknownIntegrationAction } from "~/.server/domains/integrations/page";
import { getImport } from "~/.server/domains/contacts/import";
import {
  createExportSpreadsheet,
  createImportSpreadsheet,
  exportNow,
  requireSheetsConnection,
  saveExportSettings,
  sheetsSettings,
  chooseExistingSpreadsheet,
} from "~/.server/domains/integrations/google-sheets/settings";
import { SPREADSHEET_TITLE_MAX } from "~/lib/google-sheets";
import { importContactsFromSheet } from "~/.server/domains/integrations/google-sheets/import";
import { pickerConfig } from "~/.server/domains/integrations/google-sheets/picker";
import googlePickerScript from "~/assets/google-picker.js?url";
import { PickerControl, SheetsExportCard } from "~/components/integrations/google-sheets";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { PageTitle } from "~/components/ui/page-title";
import { BackLink } from "~/components/ui/back-link";
import { Toast } from "~/components/ui/toast";
import { Notice } from "~/components/ui/notice";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, SelectField } from "~/components/ui/field";
import { TextLink } from "~/components/ui/text-link";
import { formatNumber } from "~/lib/dates";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Google Sheets' settings (issue 45, decision 085): a document without React, every form a plain
// POST, so it all works without JavaScript. The Google Picker (issue 73, decision 109) is the one
// part that needs a script (app/assets/google-picker.js): without it, "Create a new sheet".
export const handle: PermissionHandle & PageHandle = {
  permission: "developer:view",
  ...menuDocumentPage,
  scripts: [...(menuDocumentPage.scripts ?? []), googlePickerScript],
};

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.sheets_title()} | Jumbe` }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  let account: string | null;
  try {
    account = (await requireSheetsConnection(organizationId)).accountLabel;
  } catch {
    throw data(m.integrations_not_connected(), { status: 404 });
  }
  const settings = await sheetsSettings(organizationId);
  // An import's summary: the one asked for (another organisation's answers 404), else the latest.
  const asked = args.url.searchParams.get("import");
  let lastImport = null;
  if (asked || settings.lastImportId) {
    try {
      lastImport = await getImport(organizationId, asked ?? settings.lastImportId!);
    } catch (error) {
      if (asked) throw data(refusalOf(error).message, { status: 404 });
    }
  }
  const canManage = can(current.role, "developer:manage");
  return { account, settings, lastImport, canManage, picker: canManage ? pickerConfig() : null };
}

const here = () => href("/integrations/google-sheets");

const NoFields = z.object({});
const Title = z.object({ title: postedText });
const Spreadsheet = z.object({ spreadsheet: postedText });
const ExportSettings = z.object({ contacts: postedText, messages: postedText, schedule: postedText });
const ImportSheet = z.object({ spreadsheet: postedText, range: postedText, duplicates: postedText, consentEvidence: postedText });

export async function action(args: Route.ActionArgs) {
  return intentAction(args, {
    permission: "developer:manage",
    intents: {
      create: intent(Title, async ({ value, user }) => {
        const made = await createExportSpreadsheet(actorOf(args, user), value.title);
        return redirectWithToast(here(), "success", m.sheets_spreadsheet_created({ title: made.title }));
      }),
      "import-sheet": intent(Title, async ({ value, user }) => {
        const made = await createImportSpreadsheet(actorOf(args, user), value.title);
        return redirectWithToast(here(), "success", m.sheets_import_sheet_created({ title: made.title }));
      }),
      existing: intent(Spreadsheet, async ({ value, user }) => {
        const chosen = await chooseExistingSpreadsheet(actorOf(args, user), value.spreadsheet);
        return redirectWithToast(here(), "success", m.sheets_spreadsheet_chosen({ title: chosen.title }));
      }),
      settings: intent(ExportSettings, async ({ value, user }) => {
        await saveExportSettings(actorOf(args, user), {
          exportContacts: value.contacts === "on",
          exportMessages: value.messages === "on",
          schedule: value.schedule,
        });
        return redirectWithToast(here(), "success", m.sheets_settings_saved());
      }),
      export: intent(NoFields, async ({ user }) => {
        const { queued } = await exportNow(actorOf(args, user));
        return redirectWithToast(here(), "success", queued ? m.sheets_export_queued() : m.sheets_export_waiting());
      }),
      import: intent(ImportSheet, async ({ value, user }) => {
        const started = await importContactsFromSheet(actorOf(args, user), value);
        return redirectWithToast(`${here()}?import=${started.id}`, "success", m.sheets_import_started());
      }),
    },
    refused: (refusal, posted) => refusalToast(refusal, { intent: posted }),
    unknown: (posted) => refusalToast(unknownIntegrationAction(), { intent: posted }),
  });
}

const IMPORT_STATUS_WORDS = {
  uploaded: m.messaging_import_status_uploaded,
  queued: m.messaging_import_status_queued,
  running: m.messaging_import_status_running,
  done: m.messaging_import_status_done,
  failed: m.messaging_import_status_failed,
};

export default function GoogleSheetsSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { account, settings, lastImport, canManage, picker } = loaderData;
  return (
    <div className="max-w-3xl space-y-6" data-google-picker={picker ? JSON.stringify(picker) : undefined}>
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <BackLink to={href("/integrations")}>{m.sheets_back()}</BackLink>
      <div>
        <PageTitle>{m.sheets_title()}</PageTitle>
        <p className="text-slate-600">{m.sheets_intro({ account: account ?? "—" })}</p>
      </div>
      {canManage ? null : <Notice>{m.integrations_read_only()}</Notice>}

      <Card as="section" aria-labelledby="sheets-spreadsheet" className="space-y-4">
        <h2 id="sheets-spreadsheet" className="font-semibold">
          {m.sheets_spreadsheet_heading()}
        </h2>
        {settings.spreadsheetId ? (
          <p className="text-sm break-words" data-testid="sheets-current">
            {m.sheets_current({ title: settings.spreadsheetTitle ?? settings.spreadsheetId })}{" "}
            {settings.spreadsheetUrl ? (
              <TextLink to={settings.spreadsheetUrl} weight="medium">
                {m.sheets_open()}
              </TextLink>
            ) : null}
          </p>
        ) : (
          <p className="text-sm text-slate-600">{m.sheets_none_chosen()}</p>
        )}
        {canManage ? (
          <div className="grid gap-4 sm:grid-cols-2">
            <Form method="post" className="space-y-2">
              <input type="hidden" name="intent" value="create" />
              <Field label={m.sheets_create_label()} name="title" maxLength={SPREADSHEET_TITLE_MAX} defaultValue="Jumbe export" />
              <Button type="submit" size="sm">
                {m.sheets_create_button()}
              </Button>
            </Form>
            <Form method="post" className="space-y-2">
              <input type="hidden" name="intent" value="existing" />
              <Field label={m.sheets_existing_label()} name="spreadsheet" hint={m.sheets_existing_hint()} />
              {picker ? <PickerControl /> : null}
              <Button type="submit" size="sm" variant="secondary">
                {m.sheets_existing_button()}
              </Button>
            </Form>
          </div>
        ) : null}
      </Card>

      <SheetsExportCard settings={settings} canManage={canManage} />

      <Card as="section" aria-labelledby="sheets-import" className="space-y-4">
        <h2 id="sheets-import" className="font-semibold">
          {m.sheets_import_heading()}
        </h2>
        <p className="text-sm text-slate-600">{m.sheets_import_intro()}</p>
        <p className="text-sm text-slate-600" data-testid="sheets-picker-explain">
          {m.sheets_picker_explain()}
        </p>
        {settings.importSpreadsheetId ? (
          <p className="text-sm break-words" data-testid="sheets-import-sheet">
            {m.sheets_import_sheet_current({ title: settings.importSpreadsheetTitle ?? settings.importSpreadsheetId })}{" "}
            {settings.importSpreadsheetUrl ? (
              <TextLink to={settings.importSpreadsheetUrl} weight="medium">
                {m.sheets_import_sheet_open()}
              </TextLink>
            ) : null}
          </p>
        ) : null}
        {lastImport ? (
          <div className="rounded-lg bg-slate-50 p-3 text-sm" data-testid="sheets-import-result" role="status">
            <p>
              <Badge tone={lastImport.status === "done" ? "success" : lastImport.status === "failed" ? "danger" : "info"}>
                {IMPORT_STATUS_WORDS[lastImport.status]()}
              </Badge>{" "}
              {m.sheets_import_result({
                created: formatNumber(lastImport.created),
                updated: formatNumber(lastImport.updated),
                skipped: formatNumber(lastImport.skipped),
                invalid: formatNumber(lastImport.invalid),
              })}
            </p>
            {lastImport.error ? <p className="text-red-800">{lastImport.error}</p> : null}
            <p className="mt-1">
              <TextLink to={href("/messaging/contacts/import/:id", { id: lastImport.id })} weight="medium">
                {m.sheets_import_report()}
              </TextLink>
            </p>
          </div>
        ) : null}
        {canManage ? (
          <Form method="post" className="space-y-3">
            <input type="hidden" name="intent" value="import" />
            <Field
              label={m.sheets_import_spreadsheet()}
              name="spreadsheet"
              defaultValue={settings.importSpreadsheetId ?? settings.spreadsheetId ?? ""}
            />
            {picker ? <PickerControl /> : null}
            <Field
              label={m.sheets_import_range()}
              name="range"
              defaultValue={settings.importRange ?? "Sheet1!A:E"}
              hint={m.sheets_import_range_hint()}
            />
            <SelectField
              label={m.messaging_import_duplicates_label()}
              name="duplicates"
              defaultValue="skip"
              options={[
                { value: "skip", label: m.messaging_import_duplicates_skip() },
                { value: "update", label: m.messaging_import_duplicates_update() },
                { value: "merge_tags", label: m.messaging_import_duplicates_merge_tags() },
              ]}
            />
            <Field label={m.sheets_import_consent()} name="consentEvidence" maxLength={500} hint={m.sheets_import_consent_hint()} />
            <Button type="submit" size="sm">
              {m.sheets_import_button()}
            </Button>
          </Form>
        ) : null}
        {canManage ? (
          <Form method="post" className="space-y-2 border-t border-slate-200 pt-4" aria-labelledby="sheets-import-new">
            <h3 id="sheets-import-new" className="text-sm font-semibold">
              {m.sheets_import_new_heading()}
            </h3>
            <p className="text-sm text-slate-600">{m.sheets_import_new_hint()}</p>
            <input type="hidden" name="intent" value="import-sheet" />
            <Field
              label={m.sheets_import_new_label()}
              name="title"
              maxLength={SPREADSHEET_TITLE_MAX}
              defaultValue={m.sheets_import_new_default()}
            />
            <Button type="submit" size="sm" variant="secondary">
              {m.sheets_import_new_button()}
            </Button>
          </Form>
        ) : null}
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
