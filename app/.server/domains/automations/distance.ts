/**
 * Bounded Damerau–Levenshtein distance (the optimal string alignment variant: insertions, deletions,
 * substitutions and swaps of two neighbouring letters, each costing one, no substring edited twice),
 * for the fuzzy keyword rules. Only a distance up to `limit` matters to a rule, so only the band of
 * cells within `limit` of the diagonal is computed and the work stops as soon as a whole row is over
 * the limit: comparing two words costs about (length × (2·limit + 1)) steps at most.
 *
 * Strings are compared by UTF-16 code unit. Words reach here normalised (match.ts): accents removed,
 * lower case, so nearly all are in the Basic Multilingual Plane, where a unit is a letter.
 */

// Three rows reused between calls: rule matching runs thousands of comparisons a message.
let rows: Int32Array[] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/** The distance between a and b when it is at most limit, otherwise limit + 1. */
export function boundedDistance(a: string, b: string, limit: number): number {
  const over = limit + 1;
  const aLength = a.length;
  const bLength = b.length;
  if (Math.abs(aLength - bLength) > limit) return over;
  if (aLength === 0 || bLength === 0) return Math.max(aLength, bLength);
  if (rows[0]!.length <= bLength) rows = rows.map(() => new Int32Array(bLength * 2 + 1));
  let twoBack = rows[0]!;
  let previous = rows[1]!;
  let current = rows[2]!;
  for (let j = 0; j <= bLength; j++) previous[j] = j <= limit ? j : over;
  for (let i = 1; i <= aLength; i++) {
    const from = Math.max(1, i - limit);
    const to = Math.min(bLength, i + limit);
    current[0] = i <= limit ? i : over;
    if (from > 1) current[from - 1] = over;
    let rowMin = current[0]!;
    const aCode = a.charCodeAt(i - 1);
    const aBefore = i > 1 ? a.charCodeAt(i - 2) : -1;
    for (let j = from; j <= to; j++) {
      const bCode = b.charCodeAt(j - 1);
      let cell = previous[j - 1]! + (aCode === bCode ? 0 : 1);
      const deletion = previous[j]! + 1;
      if (deletion < cell) cell = deletion;
      const insertion = current[j - 1]! + 1;
      if (insertion < cell) cell = insertion;
      if (j > 1 && aCode !== bCode && aCode === b.charCodeAt(j - 2) && aBefore === bCode) {
        const swap = twoBack[j - 2]! + 1;
        if (swap < cell) cell = swap;
      }
      if (cell > over) cell = over;
      current[j] = cell;
      if (cell < rowMin) rowMin = cell;
    }
    // The cell right of the band is read by the next row as "above": it is out of reach.
    if (to < bLength) current[to + 1] = over;
    if (rowMin > limit) return over;
    const spare = twoBack;
    twoBack = previous;
    previous = current;
    current = spare;
  }
  return Math.min(previous[bLength]!, over);
}

/**
 * The letters of a word as bits: a to z one bit each, anything else in six shared bits. Two words'
 * masks give a lower bound on their distance for free (`fewestEdits`).
 */
export function letterMask(word: string): number {
  let mask = 0;
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    mask |= 1 << (code >= 97 && code <= 122 ? code - 97 : 26 + (code % 6));
  }
  return mask;
}

function bitCount(bits: number): number {
  let n = bits - ((bits >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * At least this many edits separate two words with these masks: every letter one word has and the
 * other lacks needs an edit of its own (a swap moves letters, it never replaces one). Shared bits
 * only make the bound lower, never wrong.
 */
export function fewestEdits(aMask: number, bMask: number): number {
  return Math.max(bitCount(aMask & ~bMask), bitCount(bMask & ~aMask));
}
