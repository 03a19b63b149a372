// Placeholder until the content module lands (issue 16): text only.
import type { MessageContent } from "~/lib/inbox";

export interface ContentSource {
  id: string;
  direction: "inbound" | "outbound";
  messageType: string;
  body: string;
  payload: unknown;
  template: { components: Record<string, unknown>[] } | null;
  mediaFile: { mimeType: string; size: number; fileName: string | null } | null;
  errorTitle: string | null;
  errorDetails: string | null;
}

export function messageContent(source: ContentSource): MessageContent {
  return { kind: "text", text: source.body };
}

export function contentLine(content: MessageContent): string {
  return content.kind === "text" ? content.text : content.kind;
}
