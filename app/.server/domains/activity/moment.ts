import { rawQuery } from "../../infrastructure/db/client";
import { formatWhen, zoneWords } from "~/lib/dates";
import { inLocale } from "../../infrastructure/http/display-zone";
import { baseLocale } from "~/paraglide/runtime";

/**
 * "25 Nov 2026, 15:00 (Nairobi time)": a moment as people read it, in the organisation's own time
 * zone, for texts stored now and read later (an activity line), when no request's zone applies.
 * In English, whatever the request's language: the lines it goes into are stored in English.
 */
export async function momentInWords(organizationId: string, at: Date | string): Promise<string> {
  const [row] = await rawQuery<{ time_zone: string }>(`select time_zone from organizations where id = $1`, [organizationId]);
  const zone = row?.time_zone ?? "Africa/Nairobi";
  return inLocale(baseLocale, () => `${formatWhen(at, zone)} (${zoneWords(zone)})`);
}
