import type { WebhookEvents } from "./events";
import type { CallLog, FaultTable } from "./faults";
import type { DatasetDesk } from "./datasets";
import type { MediaDesk } from "./media";
import type { MessageDesk } from "./messages";
import type { SandboxStore } from "./state";
import type { TemplateDesk } from "./templates";
import type { UploadDesk } from "./uploads";
import type { MetaSandbox, ResolvedOptions } from "./types";
import type { WebhookSender } from "./webhooks";

/** What the routers share. */
export interface SandboxContext {
  options: ResolvedOptions;
  store: SandboxStore;
  sender: WebhookSender;
  events: WebhookEvents;
  templates: TemplateDesk;
  uploads: UploadDesk;
  media: MediaDesk;
  messages: MessageDesk;
  datasets: DatasetDesk;
  faults: FaultTable;
  calls: CallLog;
  sandbox: MetaSandbox;
  webhookUrl(): string;
}
