import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRow } from "../../infrastructure/db/query";
import { recordActivity } from "../activity";
import { AUTO_TEXT_MAX, AUTOMATION_MESSAGES } from "~/lib/schemas/automations-rules";
import { m } from "~/paraglide/messages";
import { parseSchedule, type OpeningRange, type ScheduleError, type Weekday } from "./hours";
import { daysOf } from "./rules-cache";
import { refuseAutomation, touchAutomations, type RuleActor } from "./rules";

/** The welcome greets a customer again after this many days without a message from them (decision 113). */
export const WELCOME_AGAIN_AFTER_DAYS = 14;

/**
 * An organisation's welcome message (a customer's first message ever, or their first after
 * WELCOME_AGAIN_AFTER_DAYS of silence), away message (outside its
 * business hours, once a conversation a day, only when no keyword rule answered) and its hours, in
 * its time zone (Account Settings). One row, written when first saved.
 */

export interface AutomationSettings {
  welcomeEnabled: boolean;
  welcomeText: string;
  awayEnabled: boolean;
  awayText: string;
  days: Record<Weekday, OpeningRange[]>;
  holidays: string[];
  holidayMode: boolean;
}

/** The settings as stored, with the order payment automation's switch (order-payment.ts), read in the same statement. */
export interface StoredAutomationSettings extends AutomationSettings {
  orderPaymentEnabled: boolean;
}

export async function readAutomationSettings(organizationId: string): Promise<StoredAutomationSettings> {
  const row = await queryRow<{
    welcome_enabled: boolean;
    welcome_text: string;
    away_enabled: boolean;
    away_text: string;
    hours: unknown;
    holidays: string[];
    holiday_mode: boolean;
    order_payment_enabled: boolean;
  }>(
    db(),
    sql`select welcome_enabled, welcome_text, away_enabled, away_text, hours, holidays, holiday_mode, order_payment_enabled
        from automation_settings where organization_id = ${organizationId}`,
  );
  if (!row)
    return {
      welcomeEnabled: false,
      welcomeText: "",
      awayEnabled: false,
      awayText: "",
      days: daysOf({}),
      holidays: [],
      holidayMode: false,
      orderPaymentEnabled: false,
    };
  return {
    welcomeEnabled: row.welcome_enabled,
    welcomeText: row.welcome_text,
    awayEnabled: row.away_enabled,
    awayText: row.away_text,
    days: daysOf(row.hours),
    holidays: row.holidays,
    holidayMode: row.holiday_mode,
    orderPaymentEnabled: row.order_payment_enabled,
  };
}

/** A schedule check's first problem in the form's words. */
function scheduleMessage(error: ScheduleError): string {
  switch (error.code) {
    case "invalid_time":
      return m.automations_error_time();
    case "too_many_ranges":
      return m.automations_error_too_many_ranges({ max: 4 });
    case "overlap":
      return m.automations_error_overlap();
    case "invalid_holiday":
      return m.automations_error_holiday();
    case "too_many_holidays":
      return m.automations_error_too_many_holidays({ max: 100 });
    default:
      return m.automations_error_hours();
  }
}

function checkedText(enabled: boolean, text: string, field: "welcomeText" | "awayText") {
  const clean = text.replace(/\r\n/g, "\n").trim();
  if (enabled && !clean) throw refuseAutomation(400, AUTOMATION_MESSAGES.textRequired, field);
  if ([...clean].length > AUTO_TEXT_MAX) throw refuseAutomation(400, AUTOMATION_MESSAGES.textTooLong, field);
  return clean;
}

/** Saves the welcome and away messages and the hours (checked whole: nothing changes on a refusal). */
export async function saveAutomationSettings(actor: RuleActor, input: AutomationSettings, timeZone: string) {
  const welcomeText = checkedText(input.welcomeEnabled, input.welcomeText, "welcomeText");
  const awayText = checkedText(input.awayEnabled, input.awayText, "awayText");
  const parsed = parseSchedule({ timeZone, days: input.days, holidays: input.holidays, holidayMode: input.holidayMode });
  if (!parsed.ok) {
    const [error] = parsed.errors;
    throw refuseAutomation(400, scheduleMessage(error!), error!.field === "holidays" ? "holidays" : "hours");
  }
  const { days, holidays, holidayMode } = parsed.schedule;
  await db().transaction(async (tx) => {
    await touchAutomations(tx, actor.organizationId, actor.userId);
    await tx.execute(sql`
      update automation_settings set welcome_enabled = ${input.welcomeEnabled}, welcome_text = ${welcomeText},
             away_enabled = ${input.awayEnabled}, away_text = ${awayText}, hours = ${JSON.stringify(days)}::jsonb,
             holidays = ${sql.param([...holidays])}::text[], holiday_mode = ${holidayMode}
      where organization_id = ${actor.organizationId}`);
  });
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Welcome and away messages saved",
    meta: actor.meta,
  });
}
