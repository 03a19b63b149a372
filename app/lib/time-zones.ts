import { m } from "~/paraglide/messages";

/**
 * The time zones the organisation page offers: Africa's, then UTC (a short list for slow networks,
 * not all 400). The server accepts any zone the runtime knows (Intl.supportedValuesOf), so an
 * organisation set elsewhere keeps its zone; the page then shows it as an extra choice.
 */
export const DEFAULT_TIME_ZONE = "Africa/Nairobi";

export const OFFERED_TIME_ZONES = [
  "Africa/Abidjan",
  "Africa/Accra",
  "Africa/Addis_Ababa",
  "Africa/Algiers",
  "Africa/Asmera",
  "Africa/Bamako",
  "Africa/Bangui",
  "Africa/Banjul",
  "Africa/Bissau",
  "Africa/Blantyre",
  "Africa/Brazzaville",
  "Africa/Bujumbura",
  "Africa/Cairo",
  "Africa/Casablanca",
  "Africa/Ceuta",
  "Africa/Conakry",
  "Africa/Dakar",
  "Africa/Dar_es_Salaam",
  "Africa/Djibouti",
  "Africa/Douala",
  "Africa/El_Aaiun",
  "Africa/Freetown",
  "Africa/Gaborone",
  "Africa/Harare",
  "Africa/Johannesburg",
  "Africa/Juba",
  "Africa/Kampala",
  "Africa/Khartoum",
  "Africa/Kigali",
  "Africa/Kinshasa",
  "Africa/Lagos",
  "Africa/Libreville",
  "Africa/Lome",
  "Africa/Luanda",
  "Africa/Lubumbashi",
  "Africa/Lusaka",
  "Africa/Malabo",
  "Africa/Maputo",
  "Africa/Maseru",
  "Africa/Mbabane",
  "Africa/Mogadishu",
  "Africa/Monrovia",
  "Africa/Nairobi",
  "Africa/Ndjamena",
  "Africa/Niamey",
  "Africa/Nouakchott",
  "Africa/Ouagadougou",
  "Africa/Porto-Novo",
  "Africa/Sao_Tome",
  "Africa/Tripoli",
  "Africa/Tunis",
  "Africa/Windhoek",
  "UTC",
] as const;

const offered: ReadonlySet<string> = new Set(OFFERED_TIME_ZONES);
let known: ReadonlySet<string> | undefined;

/** True for a zone of the list, or any other the runtime knows (Node's list lacks "UTC", hence the list first). */
export function isTimeZone(value: string) {
  if (offered.has(value)) return true;
  known ??= new Set(typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : []);
  return known.has(value);
}

/** "Dar es Salaam" for Africa/Dar_es_Salaam. */
export function timeZoneLabel(zone: string) {
  if (zone === "UTC") return m.app_timezone_utc();
  return zone
    .replace(/^[^/]+\//, "")
    .replaceAll("_", " ")
    .replace("Asmera", "Asmara");
}
