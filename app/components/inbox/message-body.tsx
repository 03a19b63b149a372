// Placeholder until the message content component lands (issue 16).
import type { MessageContent } from "~/lib/inbox";

export function MessageBody({ content }: { content: MessageContent }) {
  return <p className="whitespace-pre-wrap break-words">{content.kind === "text" ? content.text : content.kind}</p>;
}
