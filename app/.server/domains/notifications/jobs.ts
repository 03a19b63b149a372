import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { NOTIFICATION_MAIL_QUEUE } from "./notify";
import { sendNotificationMails, type NotificationMailPayload } from "./mail-job";

/** A notification's e-mail, queued with it by the organisation's rule (decision 031): like the other mails. */
export function registerNotificationJobs() {
  registerJobHandler<NotificationMailPayload>({
    queue: NOTIFICATION_MAIL_QUEUE,
    batchSize: 1,
    maxAttempts: 6,
    concurrency: 2,
    transactional: false,
    run: (jobs) => sendNotificationMails(jobs),
  });
}
