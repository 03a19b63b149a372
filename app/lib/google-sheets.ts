/** Google Sheets' settings as the page and the server share them (decision 085). */

/** When the export runs by itself: not at all, every hour, every day. */
export const SHEETS_SCHEDULES = ["off", "hourly", "daily"] as const;
export type SheetsSchedule = (typeof SHEETS_SCHEDULES)[number];
/** The longest name a new spreadsheet may be given here. */
export const SPREADSHEET_TITLE_MAX = 100;
