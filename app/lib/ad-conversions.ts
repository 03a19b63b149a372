/** A conversion event as the inbox shows it (decision 156): no click id, no Meta answer, only why it failed. */
export interface ConversionLine {
  id: string;
  eventName: "LeadSubmitted" | "Purchase";
  valueCents: number | null;
  status: "queued" | "sending" | "sent" | "failed" | "skipped";
  reason: string | null;
  at: string;
}

export interface ConversationConversions {
  conversationId: string;
  /** "Mark as converted" is offered: consent given and an ad with a click id entered within the window. */
  canMark: boolean;
  events: ConversionLine[];
}
