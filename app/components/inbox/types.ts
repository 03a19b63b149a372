/** A template the closed-window picker offers (app/.server/inbox/page.ts ReplyTemplate). */
export interface ReplyTemplateView {
  id: string;
  name: string;
  language: string;
  category: string;
  header: string | null;
  body: string;
  footer: string | null;
  parameters: string[];
  headerTakesValue: boolean;
}
