/** WhatsApp's *bold*, _italic_, ~strike~ and ```mono```, as React elements (no HTML from the text). */
export function formatted(text: string) {
  const parts = text.split(/(\*[^*\n]+\*|_[^_\n]+_|~[^~\n]+~|```[^`]+```)/g);
  return parts.map((part, i) => {
    if (/^\*[^*]+\*$/.test(part)) return <strong key={i}>{part.slice(1, -1)}</strong>;
    if (/^_[^_]+_$/.test(part)) return <em key={i}>{part.slice(1, -1)}</em>;
    if (/^~[^~]+~$/.test(part)) return <s key={i}>{part.slice(1, -1)}</s>;
    if (/^```[^`]+```$/.test(part)) return <code key={i}>{part.slice(3, -3)}</code>;
    return part;
  });
}
