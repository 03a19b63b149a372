import type { TemplateBlock } from "~/lib/shopify";

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

const componentOf = (components: unknown, type: string) =>
  (Array.isArray(components) ? components : []).find(
    (c) => typeof c === "object" && c !== null && String((c as { type?: unknown }).type).toUpperCase() === type,
  ) as Record<string, unknown> | undefined;

const hasVariable = (text: unknown) => typeof text === "string" && /\{\{\s*[^{}]*?\s*\}\}/.test(text);

/**
 * What an event's message could not fill in this template (issue 74): the mapping fills body
 * variables only, so a media header (IMAGE, VIDEO, DOCUMENT: its file is given at send time), a text
 * header with a variable, or a URL button with a variable would be refused at every send. Null when
 * the body is all it needs.
 */
export function templateBlock(components: unknown): TemplateBlock | null {
  const header = componentOf(components, "HEADER");
  const format = String(header?.format ?? "").toUpperCase();
  if (["IMAGE", "VIDEO", "DOCUMENT"].includes(format)) return "header_media";
  if (format === "TEXT" && hasVariable(header?.text)) return "header_text";
  const buttons = componentOf(components, "BUTTONS")?.buttons;
  if (
    Array.isArray(buttons) &&
    buttons.some((b) => typeof b === "object" && b !== null && String(b.type).toUpperCase() === "URL" && hasVariable(b.url))
  )
    return "button_link";
  return null;
}
