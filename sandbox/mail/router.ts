import { Router } from "express";
import { sandboxGate } from "../access";

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * The sandbox mail outbox: what Jumbe would have sent over SMTP, newest first. It shows sign-up and
 * reset codes, so on a demo host (a control token) it asks for the token like the Meta console.
 */
export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  sentAt: string | Date;
}

/** `listOutbox` reads the mails Jumbe kept instead of sending (its mail transport, without SMTP). */
export function sandboxMailRouter(
  listOutbox: (limit: number) => Promise<OutboxMail[]>,
  access: { controlToken?: string; secureCookie?: boolean } = {},
) {
  const router = Router({ caseSensitive: true });
  const gate = sandboxGate({
    token: access.controlToken,
    secureCookie: access.secureCookie,
    loginPath: "/sandbox/token",
    home: "/sandbox/mail",
  });
  router.post("/token", ...gate.login);
  router.get("/mail.json", gate.json, async (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.json((await listOutbox(200)).map(({ to, subject, text, sentAt }) => ({ to, subject, text, sentAt })));
  });
  router.get("/mail", gate.page, async (_req, res) => {
    const mails = await listOutbox(200);
    const items = mails
      .map(
        (m) =>
          `<article><header><strong>${escapeHtml(m.subject)}</strong><br><small>To ${escapeHtml(m.to)} · ${escapeHtml(new Date(m.sentAt).toLocaleString("en-KE", { timeZone: "Africa/Nairobi" }))}</small></header><pre>${escapeHtml(m.text)}</pre></article>`,
      )
      .join("");
    res.setHeader("Cache-Control", "no-store");
    res.type("html")
      .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Sandbox mail outbox · Jumbe</title>
<style nonce="${res.locals.cspNonce}">body{font:15px/1.5 system-ui,sans-serif;max-width:760px;margin:2rem auto;padding:0 1rem;color:#0f172a}article{border:1px solid #e2e8f0;border-radius:.5rem;padding:1rem;margin:1rem 0;background:#fff}pre{white-space:pre-wrap;font:inherit;margin:.5rem 0 0}small{color:#64748b}</style></head>
<body><h1>Sandbox mail outbox</h1><p>Messages Jumbe would have sent over SMTP, newest first. <a href="/sandbox/mail.json">JSON</a> · <a href="/sandbox/mail">Refresh</a></p>${items || "<p>No mail yet.</p>"}</body></html>`);
  });
  return router;
}
