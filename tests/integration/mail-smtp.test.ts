import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";
import { count } from "drizzle-orm";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { db } from "~/.server/infrastructure/db/client";
import { mailOutbox } from "~/.server/infrastructure/db/schema";
import { createSignup } from "~/.server/domains/auth/signup";
import { META, uniqueEmail } from "../support/accounts";

interface Received {
  from: string;
  to: string[];
  raw: string;
}

const received: Received[] = [];
let server: SMTPServer;
let port = 0;

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      let raw = "";
      stream.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("SMTP transport", () => {
  it("sends the verification code through a real SMTP server when SMTP_URL is set, not to the outbox", async () => {
    setEnv(
      parseEnv({
        NODE_ENV: "test",
        APP_URL: "http://jumbe.test",
        SMTP_URL: `smtp://127.0.0.1:${port}`,
        MAIL_FROM: "Jumbe <no-reply@jumbe.test>",
      }),
    );
    const email = uniqueEmail("smtp");
    await createSignup({ firstName: "Neema", lastName: "Atieno", email, password: "Karibu#2026" }, META);
    const message = received.find((m) => m.to.includes(email));
    expect(message).toBeDefined();
    expect(message!.from).toBe("no-reply@jumbe.test");
    expect(message!.raw).toMatch(/Subject: Your Jumbe verification code: \d{6}/);
    const [stored] = await db().select({ value: count() }).from(mailOutbox);
    expect(stored!.value).toBe(0);
  });
});
