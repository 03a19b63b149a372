import type { getCampaign, recipientsPage } from "~/.server/domains/campaigns/queries";

/** A campaign as its page shows it. */
export type CampaignView = Awaited<ReturnType<typeof getCampaign>>;
export type RecipientsPage = Awaited<ReturnType<typeof recipientsPage>>;
export type Recipient = RecipientsPage["recipients"][number];
