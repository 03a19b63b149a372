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

export const INDUSTRIES = {
  government: "Government and county government",
  banking_finance: "Banking and finance",
  sacco: "SACCO",
  insurance: "Insurance",
  healthcare: "Healthcare",
  education: "Education",
  retail_ecommerce: "Retail and e-commerce",
  hospitality: "Hospitality and travel",
  agriculture: "Agriculture",
  logistics: "Logistics and transport",
  telecoms: "Telecoms and technology",
  ngo: "NGO and non-profit",
  other: "Other",
} as const;
export type Industry = keyof typeof INDUSTRIES;
export const INDUSTRY_KEYS = Object.keys(INDUSTRIES) as Industry[];
