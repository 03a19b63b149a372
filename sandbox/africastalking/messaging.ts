import type { AfricastalkingContext } from "./context";
import { E164, kenyanNetworkCode, reportSteps, SEND_REFUSALS } from "./magic";
import { countParts } from "./parts";
import { atDate, DEFAULT_SENDER, kesString, newMessageId, type Account, type SentRecipient } from "./state";

export interface SendInput {
  to: string[];
  message: string;
  from?: string;
  enqueue: boolean;
}

export const networkCodeOf = (ctx: AfricastalkingContext, number: string) =>
  ctx.options.networkCodes === "sandbox" ? "99999" : kenyanNetworkCode(number);

const refused = (number: string, statusCode: number, status: string): SentRecipient => ({
  number,
  statusCode,
  status,
  cost: "0",
  messageId: "None",
});

const blacklistKey = (sender: string, number: string) => `${sender}\n${number}`;

/**
 * A bulk send as AT answers it: per recipient a statusCode and status, the cost of its parts taken
 * from the balance (405 once it runs out), a message id; then the delivery reports of the accepted.
 */
export function sendSms(ctx: AfricastalkingContext, account: Account, input: SendInput) {
  const from = input.from ?? DEFAULT_SENDER;
  const registered = input.from === undefined || account.senderIds.includes(from) || account.shortcodes.includes(from);
  const { encoding, parts } = countParts(input.message);
  const cost = ctx.options.pricePerPart * parts;
  let total = 0;
  const recipients = input.to.map((number): SentRecipient => {
    if (!registered) return refused(number, 402, "InvalidSenderId");
    if (!E164.test(number)) return refused(number, 403, "InvalidPhoneNumber");
    const magic = SEND_REFUSALS[number];
    if (magic) return refused(number, magic.statusCode, magic.status);
    if (account.blacklist.has(blacklistKey(from, number))) return refused(number, 406, "UserInBlacklist");
    if (account.balance < cost) return refused(number, 405, "InsufficientBalance");
    account.balance -= cost;
    total += cost;
    return { number, statusCode: 101, status: "Success", cost: kesString(cost), messageId: newMessageId() };
  });
  const sent = ctx.state.record({
    username: account.username,
    from,
    message: input.message,
    encoding,
    parts,
    enqueue: input.enqueue,
    at: ctx.options.now(),
    recipients,
  });
  for (const recipient of recipients) if (recipient.statusCode === 101) scheduleReports(ctx, account, recipient);
  const accepted = recipients.filter((r) => r.statusCode === 101).length;
  return {
    sent,
    body: {
      SMSMessageData: {
        Message: `Sent to ${accepted}/${recipients.length} Total Cost: ${total > 0 ? kesString(total) : "0"}`,
        Recipients: recipients.map(({ statusCode, number, status, cost, messageId }) => ({ statusCode, number, status, cost, messageId })),
      },
    },
  };
}

function scheduleReports(ctx: AfricastalkingContext, account: Account, recipient: SentRecipient) {
  const networkCode = networkCodeOf(ctx, recipient.number);
  ctx.sender.sendGroup(
    reportSteps(recipient.number).map((step, retryCount) => ({
      kind: "delivery" as const,
      username: account.username,
      url: account.deliveryReportUrl,
      messageId: recipient.messageId,
      status: step.status,
      late: step.late,
      fields: {
        id: recipient.messageId,
        status: step.status,
        phoneNumber: recipient.number,
        networkCode,
        ...(step.failureReason ? { failureReason: step.failureReason } : {}),
        retryCount: String(retryCount),
      },
    })),
  );
}

/** A subscriber's SMS to one of the account's shortcodes: kept for fetch and POSTed to the incoming URL. */
export function receiveSms(ctx: AfricastalkingContext, account: Account, input: { from: string; to: string; text: string }) {
  const networkCode = networkCodeOf(ctx, input.from);
  const message = ctx.state.receive({
    username: account.username,
    from: input.from,
    to: input.to,
    text: input.text,
    linkId: newMessageId().replace("ATXid_", "SampleLinkId"),
    date: atDate(ctx.options.now()),
    networkCode,
  });
  const record = ctx.sender.send({
    kind: "incoming",
    username: account.username,
    url: account.incomingUrl,
    fields: {
      date: message.date,
      from: message.from,
      id: String(message.id),
      linkId: message.linkId,
      text: message.text,
      to: message.to,
      networkCode,
    },
  });
  return { message, record };
}

/** A subscriber opts out of a sender: later sends from it to them answer 406; AT tells the account. */
export function optOut(ctx: AfricastalkingContext, account: Account, input: { senderId: string; phoneNumber: string }) {
  account.blacklist.add(blacklistKey(input.senderId, input.phoneNumber));
  return ctx.sender.send({
    kind: "optout",
    username: account.username,
    url: account.optOutUrl,
    fields: { senderId: input.senderId, phoneNumber: input.phoneNumber },
  });
}

/** `lastReceivedId` paging: the next 100 after that id, oldest first. */
export function fetchInbox(ctx: AfricastalkingContext, account: Account, lastReceivedId: number) {
  return ctx.state.inbox
    .filter((m) => m.username === account.username && m.id > lastReceivedId)
    .slice(0, 100)
    .map(({ linkId, text, to, id, date, from }) => ({ linkId, text, to, id, date, from }));
}
