import { bigint, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Sandbox mail outbox: what would have gone out over SMTP. */
export const mailOutbox = pgTable("mail_outbox", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  toAddress: text("to_address").notNull(),
  subject: text("subject").notNull(),
  textBody: text("text_body").notNull(),
  htmlBody: text("html_body"),
  sentAt: timestamp("sent_at", { withTimezone: true }).notNull().defaultNow(),
});
