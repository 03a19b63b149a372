/** A template's body variables as its text names them, in order: {{1}}, {{2}}… or its named ones. */
export function templateVariables(components: unknown): string[] {
  const list = Array.isArray(components) ? components : [];
  const body = list.find((c) => typeof c === "object" && c !== null && String((c as { type?: unknown }).type).toUpperCase() === "BODY") as
    { text?: unknown } | undefined;
  const text = typeof body?.text === "string" ? body.text : "";
  const names = [...text.matchAll(/\{\{\s*([^{}]*?)\s*\}\}/g)].map((match) => match[1]!);
  if (!names.length) return [];
  if (names.every((n) => /^\d+$/.test(n))) return Array.from({ length: Math.max(...names.map(Number)) }, (_, i) => String(i + 1));
  return [...new Set(names)];
}

/** The template's body text, for the mapping page. */
export function templateBody(components: unknown): string {
  const list = Array.isArray(components) ? components : [];
  const body = list.find((c) => typeof c === "object" && c !== null && String((c as { type?: unknown }).type).toUpperCase() === "BODY") as
    { text?: unknown } | undefined;
  return typeof body?.text === "string" ? body.text : "";
}
