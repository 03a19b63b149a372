import { m } from "~/paraglide/messages";

/**
 * Kenya's 47 counties in their official numbering (the Constitution's First Schedule), and the
 * short list of industries an organisation picks from on its details page. The stored value is the
 * county's name as written here.
 */
export const COUNTIES = [
  "Mombasa",
  "Kwale",
  "Kilifi",
  "Tana River",
  "Lamu",
  "Taita-Taveta",
  "Garissa",
  "Wajir",
  "Mandera",
  "Marsabit",
  "Isiolo",
  "Meru",
  "Tharaka-Nithi",
  "Embu",
  "Kitui",
  "Machakos",
  "Makueni",
  "Nyandarua",
  "Nyeri",
  "Kirinyaga",
  "Murang'a",
  "Kiambu",
  "Turkana",
  "West Pokot",
  "Samburu",
  "Trans-Nzoia",
  "Uasin Gishu",
  "Elgeyo-Marakwet",
  "Nandi",
  "Baringo",
  "Laikipia",
  "Nakuru",
  "Narok",
  "Kajiado",
  "Kericho",
  "Bomet",
  "Kakamega",
  "Vihiga",
  "Bungoma",
  "Busia",
  "Siaya",
  "Kisumu",
  "Homa Bay",
  "Migori",
  "Kisii",
  "Nyamira",
  "Nairobi",
] as const;
export type County = (typeof COUNTIES)[number];

/** The counties as a select's options: by name, each with its official code ("Nakuru (032)"). */
export const COUNTY_OPTIONS = COUNTIES.map((name, i) => ({ value: name, label: `${name} (${String(i + 1).padStart(3, "0")})` })).sort(
  (a, b) => a.value.localeCompare(b.value, "en"),
);

/** The industries' names, in the language of the page that reads them (getters: issue 43). */
export const INDUSTRIES = {
  get government() {
    return m.app_industry_government();
  },
  get banking_finance() {
    return m.app_industry_banking_finance();
  },
  get sacco() {
    return m.app_industry_sacco();
  },
  get insurance() {
    return m.app_industry_insurance();
  },
  get healthcare() {
    return m.app_industry_healthcare();
  },
  get education() {
    return m.app_industry_education();
  },
  get retail_ecommerce() {
    return m.app_industry_retail_ecommerce();
  },
  get hospitality() {
    return m.app_industry_hospitality();
  },
  get agriculture() {
    return m.app_industry_agriculture();
  },
  get logistics() {
    return m.app_industry_logistics();
  },
  get telecoms() {
    return m.app_industry_telecoms();
  },
  get ngo() {
    return m.app_industry_ngo();
  },
  get other() {
    return m.app_industry_other();
  },
} as const;
export type Industry = keyof typeof INDUSTRIES;
export const INDUSTRY_KEYS = Object.keys(INDUSTRIES) as Industry[];
