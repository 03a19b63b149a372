/**
 * Is a tenant's regular expression safe to run on every inbound message?
 *
 * JavaScript has no time limit on a regular expression, and V8 backtracks: `(a+)+x` takes seconds
 * on thirty a's, and even `.*.*.*x` takes about a minute on a 1,000-character message (measured on
 * Node 20). So a pattern is read here once, when the rule is saved (and again when it is compiled),
 * and refused when its shape allows more than a small amount of backtracking. The check is static and
 * conservative: it refuses some patterns that would in fact run fast, never the other way round for
 * the shapes it knows, and anything it does not understand is refused.
 *
 * Refused as "unsafe":
 * - backreferences (`\1`, `\k<name>`): matching them is not even polynomial in general;
 * - lookbehind (`(?<=`, `(?<!`): not needed for keyword rules, and V8 runs it backwards with the same
 *   backtracking;
 * - a group repeated more than once (`*`, `+`, `{2,}`, `{2}`...) that contains a quantifier with a
 *   choice or an alternation: `(a+)+`, `(a*)*`, `(a|aa)+`, `(a?){20}`, `(?:bei|price)+`;
 * - two repetitions (`*`, `+`, `{n,m}` with m > 1) that can match the same character, unless a
 *   mandatory character between them cannot be matched by one of the two: `.*.*`, `\d+\d+`,
 *   `.*bei.*` and `\s*#?\s*` are refused, `\d+x\d+`, `\w+ \w+` and `^bei.*` are not;
 * - more than 1,000 ways through the alternations and optional parts taken together (a branch count
 *   for each `|` list, two for each `?`): `(a|a)(a|a)...` doubles its work with every group.
 *
 * What passes still tries every start position in the message, and one repetition can scan the rest
 * of it from each: the worst case is about n² steps, about a millisecond at the 1,000 characters
 * a message is cut to (match.ts).
 */

export const MAX_REGEX_LENGTH = 200;
const MAX_PATHS = 1000;

export type RegexCheck = { ok: true } | { ok: false; reason: "invalid" | "too_long" | "unsafe" };

/**
 * The flags every rule's pattern runs with: Unicode mode, for its stricter syntax. Case is ignored by
 * lower-casing the pattern as the message is (`regexSource`) rather than with the i flag: with i and u
 * together V8 ran a tenant's worth of patterns about three times slower (Node 20).
 */
export const REGEX_FLAGS = "u";

/**
 * A pattern as it is run, made like the normalised message (match.ts): written-in accents removed,
 * curly quotes straight, lower case, so `Habári` finds "HABARI". Only canonical decomposition is used:
 * a compatibility one would turn a full-width `＊` into the quantifier `*`. What follows a backslash
 * keeps its case (`\D`, `\S`, `\p{Lu}` mean something else in lower case), so an escaped capital
 * (`\x41`) never matches.
 */
export function regexSource(pattern: string): string {
  const plain = pattern
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .replace(/[\u2018\u2019\u201b\u02bc\u2032\uff07`\u00b4]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u00ab\u00bb\u2033\uff02]/g, '"');
  let source = "";
  for (let i = 0; i < plain.length; i++) {
    const char = plain[i]!;
    if (char !== "\\") {
      source += char.toLowerCase();
      continue;
    }
    const next = plain[i + 1] ?? "";
    // A property's name is case-sensitive: \p{Lu} is copied whole.
    const end = (next === "p" || next === "P") && plain[i + 2] === "{" ? plain.indexOf("}", i) + 1 || plain.length : i + 2;
    source += plain.slice(i, end);
    i = end - 1;
  }
  return source;
}

/** Whether a tenant's pattern may be saved; the reason is a code the form turns into words. */
export function checkRegex(pattern: string): RegexCheck {
  if (pattern.length > MAX_REGEX_LENGTH) return { ok: false, reason: "too_long" };
  const source = regexSource(pattern);
  if (!source.trim()) return { ok: false, reason: "invalid" };
  try {
    new RegExp(source, REGEX_FLAGS);
  } catch {
    return { ok: false, reason: "invalid" };
  }
  return isSafePattern(source) ? { ok: true } : { ok: false, reason: "unsafe" };
}

// ---------------------------------------------------------------------------------------------
// Character sets: sorted, merged ranges of code points, so overlap is exact for what is parsed.

type Range = readonly [number, number];
type CharSet = readonly Range[];

const MAX_CODE_POINT = 0x10ffff;
const ANY: CharSet = [[0, MAX_CODE_POINT]];
const DIGITS: CharSet = [[0x30, 0x39]];
// With the i flag as well as u, \w also matches ſ (U+017F) and the Kelvin sign (U+212A), which fold to s
// and k. Patterns run without i, but the sets here are read as if it were on (`caseInsensitive`): larger
// sets can only refuse more.
const WORD: CharSet = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
  [0x17f, 0x17f],
  [0x212a, 0x212a],
];
const SPACE: CharSet = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

function union(ranges: readonly Range[]): CharSet {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = merged[merged.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else merged.push([lo, hi]);
  }
  return merged;
}

function complement(set: CharSet): CharSet {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of set) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

function intersects(a: CharSet, b: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [aLo, aHi] = a[i]!;
    const [bLo, bHi] = b[j]!;
    if (aHi < bLo) i++;
    else if (bHi < aLo) j++;
    else return true;
  }
  return false;
}

const touches = (lo: number, hi: number, from: number, to: number) => lo <= to && hi >= from;

/**
 * A set as the i flag reads it: ASCII letters in both cases (and s/k with their two non-ASCII folds);
 * one non-ASCII character with its own upper and lower case; a non-ASCII range with everything
 * non-ASCII and every ASCII letter, which over-counts (so may refuse) but never under-counts.
 */
function caseInsensitive(set: CharSet): CharSet {
  const out: Range[] = [...set];
  for (const [lo, hi] of set) {
    if (touches(lo, hi, 0x41, 0x5a)) out.push([Math.max(lo, 0x41) + 32, Math.min(hi, 0x5a) + 32]);
    if (touches(lo, hi, 0x61, 0x7a)) out.push([Math.max(lo, 0x61) - 32, Math.min(hi, 0x7a) - 32]);
    if (touches(lo, hi, 0x53, 0x53) || touches(lo, hi, 0x73, 0x73) || touches(lo, hi, 0x17f, 0x17f))
      out.push([0x53, 0x53], [0x73, 0x73], [0x17f, 0x17f]);
    if (touches(lo, hi, 0x4b, 0x4b) || touches(lo, hi, 0x6b, 0x6b) || touches(lo, hi, 0x212a, 0x212a))
      out.push([0x4b, 0x4b], [0x6b, 0x6b], [0x212a, 0x212a]);
    if (hi < 0x80) continue;
    if (lo !== hi) {
      out.push([0x80, MAX_CODE_POINT], [0x41, 0x5a], [0x61, 0x7a]);
      continue;
    }
    const char = String.fromCodePoint(lo);
    for (const variant of [char.toLowerCase(), char.toUpperCase()]) {
      const code = variant.codePointAt(0)!;
      if (variant.length === String.fromCodePoint(code).length) out.push([code, code]);
    }
  }
  return union(out);
}

// ---------------------------------------------------------------------------------------------
// The pattern's shape: a small parser for the Unicode-mode syntax (the pattern already compiled).

type RegexNode =
  | { kind: "chars"; set: CharSet }
  | { kind: "group"; alternatives: RegexTerm[][] }
  | { kind: "lookahead"; alternatives: RegexTerm[][] }
  | { kind: "assertion" };

interface RegexTerm {
  node: RegexNode;
  min: number;
  max: number;
}

interface Cursor {
  source: string;
  pos: number;
}

/** Thrown inside the parser for anything refused or not understood; never leaves this module. */
const REFUSED = new Error("refused pattern");

function isSafePattern(source: string): boolean {
  try {
    const cursor = { source, pos: 0 };
    const pattern = parseDisjunction(cursor);
    if (cursor.pos !== source.length) return false;
    return !hasNestedRepetition(pattern, false) && countPaths(pattern) <= MAX_PATHS && !hasAmbiguousRepetitions(pattern);
  } catch (error) {
    if (error === REFUSED) return false;
    throw error;
  }
}

function parseDisjunction(cursor: Cursor): RegexTerm[][] {
  const alternatives = [parseAlternative(cursor)];
  while (cursor.source[cursor.pos] === "|") {
    cursor.pos++;
    alternatives.push(parseAlternative(cursor));
  }
  return alternatives;
}

function parseAlternative(cursor: Cursor): RegexTerm[] {
  const terms: RegexTerm[] = [];
  while (cursor.pos < cursor.source.length && cursor.source[cursor.pos] !== "|" && cursor.source[cursor.pos] !== ")") {
    const node = parseAtom(cursor);
    const bounds = parseQuantifier(cursor);
    if (bounds && node.kind !== "chars" && node.kind !== "group") throw REFUSED;
    terms.push({ node, min: bounds?.[0] ?? 1, max: bounds?.[1] ?? 1 });
  }
  return terms;
}

function parseQuantifier(cursor: Cursor): [number, number] | null {
  const rest = cursor.source.slice(cursor.pos, cursor.pos + 24);
  let bounds: [number, number] | null = null;
  let length = 1;
  if (rest[0] === "*") bounds = [0, Infinity];
  else if (rest[0] === "+") bounds = [1, Infinity];
  else if (rest[0] === "?") bounds = [0, 1];
  else if (rest[0] === "{") {
    const braces = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (!braces) throw REFUSED;
    const min = Number(braces[1]);
    bounds = [min, braces[2] === undefined ? min : braces[3] ? Number(braces[3]) : Infinity];
    length = braces[0].length;
  }
  if (!bounds) return null;
  cursor.pos += length;
  // A lazy quantifier tries the same ways in another order: the worst case is the same.
  if (cursor.source[cursor.pos] === "?") cursor.pos++;
  return bounds;
}

function parseAtom(cursor: Cursor): RegexNode {
  const { source } = cursor;
  const char = source[cursor.pos]!;
  if (char === "(") return parseGroup(cursor);
  if (char === "[") return { kind: "chars", set: parseClass(cursor) };
  cursor.pos++;
  if (char === ".") return { kind: "chars", set: ANY };
  if (char === "^" || char === "$") return { kind: "assertion" };
  if (char === "\\") return parseEscape(cursor);
  if ("*+?{}]".includes(char)) throw REFUSED;
  cursor.pos--;
  return { kind: "chars", set: caseInsensitive(single(readCodePoint(cursor))) };
}

function parseGroup(cursor: Cursor): RegexNode {
  const rest = cursor.source.slice(cursor.pos, cursor.pos + 4);
  let kind: "group" | "lookahead" = "group";
  if (rest.startsWith("(?:")) cursor.pos += 3;
  else if (rest.startsWith("(?=") || rest.startsWith("(?!")) {
    kind = "lookahead";
    cursor.pos += 3;
  } else if (rest.startsWith("(?<=") || rest.startsWith("(?<!")) throw REFUSED;
  else if (rest.startsWith("(?<")) {
    const close = cursor.source.indexOf(">", cursor.pos);
    if (close < 0) throw REFUSED;
    cursor.pos = close + 1;
  } else if (rest.startsWith("(?")) throw REFUSED;
  else cursor.pos += 1;
  const alternatives = parseDisjunction(cursor);
  if (cursor.source[cursor.pos] !== ")") throw REFUSED;
  cursor.pos++;
  return { kind, alternatives };
}

const single = (code: number): CharSet => [[code, code]];

function readCodePoint(cursor: Cursor): number {
  const code = cursor.source.codePointAt(cursor.pos);
  if (code === undefined) throw REFUSED;
  cursor.pos += code > 0xffff ? 2 : 1;
  return code;
}

function parseEscape(cursor: Cursor): RegexNode {
  const letter = cursor.source[cursor.pos];
  if (letter === "b" || letter === "B") {
    cursor.pos++;
    return { kind: "assertion" };
  }
  // Backreferences: \1..\9 (and longer numbers), \k<name>.
  if (letter === "k" || (letter !== undefined && letter >= "1" && letter <= "9")) throw REFUSED;
  const escaped = parseCharacterEscape(cursor, false);
  return { kind: "chars", set: typeof escaped === "number" ? caseInsensitive(single(escaped)) : escaped };
}

/** After a backslash: a class escape (\d, \p{...}) as a set, or one character as its code point. */
function parseCharacterEscape(cursor: Cursor, inClass: boolean): CharSet | number {
  const { source } = cursor;
  const letter = source[cursor.pos];
  if (letter === undefined) throw REFUSED;
  cursor.pos++;
  switch (letter) {
    case "d":
      return DIGITS;
    case "D":
      return complement(DIGITS);
    case "w":
      return WORD;
    case "W":
      return complement(WORD);
    case "s":
      return SPACE;
    case "S":
      return complement(SPACE);
    case "p":
    case "P": {
      // A Unicode property: taken as any character, which can only refuse more.
      const close = source.indexOf("}", cursor.pos);
      if (source[cursor.pos] !== "{" || close < 0) throw REFUSED;
      cursor.pos = close + 1;
      return ANY;
    }
    case "t":
      return 0x09;
    case "n":
      return 0x0a;
    case "v":
      return 0x0b;
    case "f":
      return 0x0c;
    case "r":
      return 0x0d;
    case "0":
      return 0;
    case "b":
      if (inClass) return 0x08;
      throw REFUSED;
    case "c": {
      const control = source.charCodeAt(cursor.pos);
      if (Number.isNaN(control)) throw REFUSED;
      cursor.pos++;
      return control % 32;
    }
    case "x":
      return readHex(cursor, 2);
    case "u":
      return readUnicodeEscape(cursor);
    default:
      if (/[\^$\\.*+?()[\]{}|/]/.test(letter) || (inClass && letter === "-")) return letter.charCodeAt(0);
      throw REFUSED;
  }
}

function readHex(cursor: Cursor, digits: number): number {
  const hex = cursor.source.slice(cursor.pos, cursor.pos + digits);
  if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) throw REFUSED;
  cursor.pos += digits;
  return parseInt(hex, 16);
}

function readUnicodeEscape(cursor: Cursor): number {
  const { source } = cursor;
  if (source[cursor.pos] === "{") {
    const close = source.indexOf("}", cursor.pos);
    const hex = source.slice(cursor.pos + 1, close);
    if (close < 0 || !/^[0-9a-fA-F]{1,6}$/.test(hex)) throw REFUSED;
    cursor.pos = close + 1;
    return parseInt(hex, 16);
  }
  const code = readHex(cursor, 4);
  // In Unicode mode an escaped surrogate pair is one character.
  if (code >= 0xd800 && code <= 0xdbff && source.startsWith("\\u", cursor.pos)) {
    const low = parseInt(source.slice(cursor.pos + 2, cursor.pos + 6), 16);
    if (low >= 0xdc00 && low <= 0xdfff) {
      cursor.pos += 6;
      return 0x10000 + (code - 0xd800) * 0x400 + (low - 0xdc00);
    }
  }
  return code;
}

function parseClass(cursor: Cursor): CharSet {
  const { source } = cursor;
  cursor.pos++;
  const negated = source[cursor.pos] === "^";
  if (negated) cursor.pos++;
  const members: Range[] = [];
  while (source[cursor.pos] !== "]") {
    if (cursor.pos >= source.length) throw REFUSED;
    const first = parseClassAtom(cursor);
    if (source[cursor.pos] === "-" && source[cursor.pos + 1] !== "]" && cursor.pos + 1 < source.length) {
      cursor.pos++;
      const last = parseClassAtom(cursor);
      if (typeof first !== "number" || typeof last !== "number" || last < first) throw REFUSED;
      members.push([first, last]);
    } else if (typeof first === "number") members.push([first, first]);
    else members.push(...first);
  }
  cursor.pos++;
  const set = caseInsensitive(union(members));
  return negated ? complement(set) : set;
}

function parseClassAtom(cursor: Cursor): CharSet | number {
  if (cursor.source[cursor.pos] !== "\\") return readCodePoint(cursor);
  cursor.pos++;
  return parseCharacterEscape(cursor, true);
}

// ---------------------------------------------------------------------------------------------
// The rules on the shape.

/** A quantifier that can repeat its atom a varying number of times, beyond once. */
const repeats = (term: RegexTerm) => term.max > 1 && term.max > term.min;

function hasChoice(alternatives: readonly RegexTerm[][]): boolean {
  if (alternatives.length > 1) return true;
  return alternatives.some((terms) =>
    terms.some(
      (term) => term.max > term.min || (term.node.kind !== "chars" && term.node.kind !== "assertion" && hasChoice(term.node.alternatives)),
    ),
  );
}

/** A group repeated more than once with a choice inside: `(a+)+`, `(a|aa)+`, `(a?){20}`. */
function hasNestedRepetition(alternatives: readonly RegexTerm[][], insideRepetition: boolean): boolean {
  if (insideRepetition && hasChoice(alternatives)) return true;
  return alternatives.some((terms) =>
    terms.some(
      (term) =>
        (term.node.kind === "group" && hasNestedRepetition(term.node.alternatives, term.max > 1)) ||
        (term.node.kind === "lookahead" && hasNestedRepetition(term.node.alternatives, false)),
    ),
  );
}

/** How many ways through the alternations and optional parts, multiplied out (capped to stay finite). */
function countPaths(alternatives: readonly RegexTerm[][]): number {
  let total = 0;
  for (const terms of alternatives) {
    let product = 1;
    for (const term of terms) {
      if (term.max === 1 && term.min === 0) product *= 2;
      if (term.node.kind === "group" || term.node.kind === "lookahead") product *= countPaths(term.node.alternatives);
      if (product > MAX_PATHS) return product;
    }
    total += product;
  }
  return total;
}

/** Every character a node can consume. */
function consumed(node: RegexNode): CharSet {
  if (node.kind === "chars") return node.set;
  if (node.kind !== "group") return [];
  return union(node.alternatives.flatMap((terms) => terms.flatMap((term) => consumed(term.node))));
}

/** The repetitions at or inside a term (not inside a lookahead, which is checked on its own), as their sets. */
function repetitionsIn(term: RegexTerm): CharSet[] {
  const own = repeats(term) ? [consumed(term.node)] : [];
  if (term.node.kind !== "group") return own;
  return [...own, ...term.node.alternatives.flatMap((terms) => terms.flatMap(repetitionsIn))];
}

/**
 * Two repetitions in one sequence that can take the same characters, with nothing mandatory between
 * them that one of them cannot take: the text between can be split between them in many ways.
 */
function hasAmbiguousRepetitions(alternatives: readonly RegexTerm[][]): boolean {
  for (const terms of alternatives) {
    const inside = terms.map(repetitionsIn);
    for (let i = 0; i < terms.length; i++) {
      for (let j = i + 1; j < terms.length; j++) {
        for (const first of inside[i]!) {
          for (const second of inside[j]!) {
            if (!intersects(first, second)) continue;
            const separated = terms
              .slice(i + 1, j)
              .some(
                (between) =>
                  between.min >= 1 &&
                  between.node.kind === "chars" &&
                  (!intersects(between.node.set, first) || !intersects(between.node.set, second)),
              );
            if (!separated) return true;
          }
        }
      }
    }
    for (const term of terms) {
      if ((term.node.kind === "group" || term.node.kind === "lookahead") && hasAmbiguousRepetitions(term.node.alternatives)) return true;
    }
  }
  return false;
}
