/**
 * An article cut into passages for retrieval and the prompt: paragraphs (blank lines) joined up to
 * PASSAGE_MAX characters, a longer paragraph cut at sentence ends (or spaces), each passage led by
 * the article's title so its words count for every part of it.
 */
export const PASSAGE_MAX = 600;

function cutLong(paragraph: string): string[] {
  const parts: string[] = [];
  let rest = paragraph;
  while (rest.length > PASSAGE_MAX) {
    const window = rest.slice(0, PASSAGE_MAX);
    const sentence = Math.max(window.lastIndexOf(". "), window.lastIndexOf("? "), window.lastIndexOf("! "));
    const space = window.lastIndexOf(" ");
    const at = sentence > PASSAGE_MAX / 2 ? sentence + 1 : space > PASSAGE_MAX / 2 ? space : PASSAGE_MAX;
    parts.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) parts.push(rest);
  return parts;
}

export function passagesOf(title: string, body: string): string[] {
  const paragraphs = body
    .replace(/\r\n?/g, "\n")
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, " ").trim())
    .filter(Boolean)
    .flatMap(cutLong);
  const chunks: string[] = [];
  for (const paragraph of paragraphs) {
    const last = chunks.length ? chunks[chunks.length - 1]! : null;
    if (last !== null && last.length + 1 + paragraph.length <= PASSAGE_MAX) chunks[chunks.length - 1] = `${last} ${paragraph}`;
    else chunks.push(paragraph);
  }
  const head = title.replace(/\s+/g, " ").trim();
  if (!chunks.length) return head ? [head] : [];
  return chunks.map((chunk) => (head ? `${head}: ${chunk}` : chunk));
}
