import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { INVITATION_MAIL_QUEUE, sendInvitationMails, type InvitationMailPayload } from "./invitations";

/** An invitation's e-mail: like the other mails, outside a transaction, one address per job. */
export function registerTeamJobs() {
  registerJobHandler<InvitationMailPayload>({
    queue: INVITATION_MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    concurrency: 2,
    transactional: false,
    run: (jobs) => sendInvitationMails(jobs),
  });
}
