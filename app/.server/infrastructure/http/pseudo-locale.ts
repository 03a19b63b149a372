import { env } from "../config/env";

/**
 * A pseudo-locale for checking layouts (issue 43): every word of a page accented and two-fifths
 * longer ("Sëttííñgš" for "Settings"), as a translation may be, so that a page which holds at 360 px
 * in it holds in Swahili and French, and in a language added later. The server writes it over the
 * HTML it sends, so it only serves pages drawn without JavaScript (the browser tests' no-JS walk);
 * React in the browser would draw its own words again. A local deployment only (development, the
 * browser tests, the demo), for a browser that sends the cookie `jumbe_pseudo=1`.
 */
export const PSEUDO_COOKIE = "jumbe_pseudo";

export function wantsPseudoLocale(request: Request): boolean {
  if (env().DEPLOYMENT !== "local") return false;
  return /(?:^|;\s*)jumbe_pseudo=1(?:;|$)/.test(request.headers.get("cookie") ?? "");
}

const ACCENTED: Record<string, string> = {
  a: "á",
  e: "ë",
  i: "í",
  o: "ö",
  u: "ü",
  c: "ç",
  n: "ñ",
  s: "š",
  y: "ý",
  z: "ž",
  A: "Å",
  E: "É",
  I: "Í",
  O: "Ö",
  U: "Ü",
  C: "Ç",
  N: "Ñ",
  S: "Š",
  Y: "Ý",
  Z: "Ž",
};

/** One word, accented and two-fifths longer (its own vowels repeated, so it still breaks as a word). */
export function pseudoWord(word: string): string {
  const accented = [...word].map((letter) => ACCENTED[letter] ?? letter).join("");
  const extra = Math.ceil(word.length * 0.4);
  const vowels = accented.replace(/[^áëíöüÅÉÍÖÜ]/g, "") || accented;
  return accented + vowels.repeat(Math.ceil(extra / vowels.length)).slice(0, extra);
}

/** The text of a fragment of HTML between tags, its entities kept. */
function pseudoText(text: string): string {
  return text.replace(/(&[#\w]+;)|([A-Za-z]{2,})/g, (whole, entity: string | undefined) => (entity ? whole : pseudoWord(whole)));
}

/** A whole document's text in the pseudo-locale: scripts, styles and tags (and their attributes) as they were. */
export function pseudoLocalize(html: string): string {
  return html
    .split(/(<script\b[\s\S]*?<\/script>|<style\b[\s\S]*?<\/style>|<[^>]*>)/i)
    .map((part, index) => (index % 2 === 1 ? part : pseudoText(part)))
    .join("");
}
