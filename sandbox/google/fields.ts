/**
 * Google's partial responses (`fields=`, system parameter of every Google API): a selector such as
 * `spreadsheetId,properties.title,sheets.properties` or `sheets(properties(sheetId,title))` (`/`
 * works as `.`, `*` is everything). An answer keeps only the fields named; arrays are selected item
 * by item; a field the answer lacks stays absent.
 */
export type FieldMask = Map<string, FieldMask | true>;

/** The selector's tree, or null when it is not a selector Google would read. */
export function parseFieldMask(text: string): FieldMask | null {
  let at = 0;
  const name = () => {
    const match = /^(?:\*|[A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(at));
    if (!match) return null;
    at += match[0].length;
    return match[0];
  };
  const list = (into: FieldMask): boolean => {
    do {
      const path: string[] = [];
      for (;;) {
        const part = name();
        if (!part) return false;
        path.push(part);
        if (text[at] !== "." && text[at] !== "/") break;
        at++;
      }
      let node = into;
      for (const part of path.slice(0, -1)) {
        const next = node.get(part);
        // A field already selected whole: a narrower selection under it changes nothing.
        const sub: FieldMask = next instanceof Map ? next : new Map();
        if (next === undefined) node.set(part, sub);
        node = sub;
      }
      const last = path.at(-1)!;
      if (text[at] === "(") {
        at++;
        const existing = node.get(last);
        const sub: FieldMask = existing instanceof Map ? existing : new Map();
        if (existing !== true) node.set(last, sub);
        if (!list(sub) || text[at] !== ")") return false;
        at++;
      } else node.set(last, true);
    } while (text[at] === "," && ++at);
    return true;
  };
  const mask: FieldMask = new Map();
  text = text.replace(/\s+/g, "");
  if (!text || !list(mask) || at !== text.length) return null;
  return mask;
}

/** The answer with only the fields the mask names. */
export function applyFieldMask(value: unknown, mask: FieldMask | true): unknown {
  if (mask === true || mask.has("*") || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => applyFieldMask(item, mask));
  const out: Record<string, unknown> = {};
  for (const [key, sub] of mask) {
    if (key in (value as Record<string, unknown>)) out[key] = applyFieldMask((value as Record<string, unknown>)[key], sub);
  }
  return out;
}
