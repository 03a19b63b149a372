export const LANGUAGE_LABELS = { curl: "curl", javascript: "JavaScript", python: "Python" } as const;
export type Language = keyof typeof LANGUAGE_LABELS;
export const LANGUAGES = Object.keys(LANGUAGE_LABELS) as Language[];

/** The examples' language from `?lang=`; curl unless another known one is asked for. */
export function exampleLanguage(url: URL): Language {
  const asked = url.searchParams.get("lang");
  return LANGUAGES.find((language) => language === asked) ?? "curl";
}
