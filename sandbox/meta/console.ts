import express, { Router, type Request, type Response } from "express";
import type { SandboxContext } from "./context";
import { QUALITY_EVENTS } from "./events";
import { MAX_AGE_SECONDS } from "./inbound";
import { page } from "./html";
import type { TemplateEvent } from "./types";
import { escapeHtml } from "./util";

const SHOW = 100;

const DEFAULTS = { from: "254712345678", name: "Amina Wanjiku", text: "Habari! Ninahitaji msaada na oda yangu 🙏" };

const field = (body: Record<string, unknown>, key: string) => (typeof body[key] === "string" ? (body[key] as string) : "");

function time(iso: string) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString("en-KE", { timeZone: "Africa/Nairobi", hour12: false });
}

function pill(value: string) {
  const kind = /^(CONNECTED|GREEN|delivered|CLOUD_API|yes|APPROVED)$/.test(value)
    ? "ok"
    : /^(RED|failed|DISCONNECTED|FLAGGED|REJECTED|PAUSED|DISABLED)$/.test(value)
      ? "bad"
      : /^(PENDING|YELLOW|pending)$/.test(value)
        ? "wait"
        : "";
  return `<span class="pill ${kind}">${escapeHtml(value)}</span>`;
}

/** The sandbox console: state, the Graph calls received, the webhooks sent, and forms to drive them. */
export function consoleRouter(ctx: SandboxContext): Router {
  const router = Router({ caseSensitive: true });
  const form = express.urlencoded({ extended: false, limit: "64kb" });
  const base = ctx.options.publicPath;

  const back = (res: Response, outcome: { notice?: string; error?: string }) => {
    const query = new URLSearchParams(outcome.error ? { error: outcome.error } : { notice: outcome.notice ?? "Done." });
    res.redirect(303, `${base}?${query.toString()}`);
  };

  const action =
    (handler: (body: Record<string, unknown>, req: Request) => Promise<string> | string) => async (req: Request, res: Response) => {
      try {
        back(res, { notice: await handler((req.body ?? {}) as Record<string, unknown>, req) });
      } catch (error) {
        back(res, { error: error instanceof Error ? error.message : String(error) });
      }
    };

  /** A customer's text message from the console's fields: the number written to, who writes, and what. */
  const customerText = (b: Record<string, unknown>) => ({
    phoneNumberId: field(b, "phoneNumberId"),
    from: field(b, "from") || DEFAULTS.from,
    name: field(b, "name") || DEFAULTS.name,
    type: "text" as const,
    text: field(b, "text"),
  });

  router.get("/", (req, res) => renderConsole(ctx, req, res));

  router.post(
    "/console/inbound",
    form,
    action(async (b) => {
      const age = field(b, "ageSeconds").trim();
      const { wamid } = await ctx.sandbox.sendInbound({
        ...customerText(b),
        ...(age ? { ageSeconds: /^\d+$/.test(age) ? Number(age) : Number.NaN } : {}),
      });
      return `Queued inbound message ${wamid}.`;
    }),
  );
  // A customer taps a made-up Click-to-WhatsApp ad and writes: the message carries the ad's referral.
  router.post(
    "/console/from-ad",
    form,
    action(async (b, req) => {
      // Without an address of its own, the ad's picture is the sandbox's (Meta's CDN stand-in, /ad-media).
      const picture = `${req.protocol}://${req.get("host") ?? "localhost"}${base}/ad-media/${field(b, "sourceId")}.png`;
      const { wamid } = await ctx.sandbox.sendInbound({
        ...customerText(b),
        ad: {
          sourceId: field(b, "sourceId"),
          headline: field(b, "headline"),
          body: field(b, "body"),
          imageUrl: field(b, "imageUrl") || picture,
        },
      });
      return `Queued a message from the ad ${field(b, "sourceId")} (${wamid}).`;
    }),
  );
  // The customer taps one of a message's reply buttons, as WhatsApp posts it: an interactive button_reply in reply to that message.
  router.post(
    "/console/tap",
    form,
    action(async (b) => {
      const { wamid } = await ctx.sandbox.sendInbound({
        phoneNumberId: field(b, "phoneNumberId"),
        from: field(b, "from"),
        name: field(b, "name") || DEFAULTS.name,
        type: "button_reply",
        contextId: field(b, "contextId"),
        replyId: field(b, "replyId"),
        title: field(b, "title"),
      });
      return `Tapped "${field(b, "title")}" (${wamid}).`;
    }),
  );
  router.post(
    "/console/status",
    form,
    action(async (b) => {
      const errorCode = field(b, "errorCode").trim();
      await ctx.sandbox.sendStatus({
        phoneNumberId: field(b, "phoneNumberId"),
        wamid: field(b, "wamid"),
        status: field(b, "status") as "sent",
        recipientId: field(b, "recipientId"),
        ...(errorCode ? { errorCode: Number(errorCode) } : {}),
      });
      return `Queued ${field(b, "status")} status.`;
    }),
  );
  router.post(
    "/console/quality",
    form,
    action(async (b) => {
      const currentLimit = field(b, "currentLimit").trim();
      await ctx.sandbox.sendQualityUpdate({
        phoneNumberId: field(b, "phoneNumberId"),
        event: field(b, "event") as "FLAGGED",
        ...(currentLimit ? { currentLimit } : {}),
      });
      return `Queued ${field(b, "event")} quality update.`;
    }),
  );
  router.post(
    "/console/account-update",
    form,
    action(async (b) => {
      await ctx.sandbox.sendAccountUpdate({ wabaId: field(b, "wabaId"), event: field(b, "event").trim() });
      return `Queued ${field(b, "event")} account update.`;
    }),
  );
  router.post(
    "/console/templates/review",
    form,
    action(async () => {
      const decided = await ctx.sandbox.reviewTemplatesNow();
      return decided.length
        ? `Reviewed ${decided.length} template(s): ${decided.map((d) => `${d.name} (${d.language}) ${d.status}`).join(", ")}.`
        : "No template was waiting for review.";
    }),
  );
  router.post(
    "/console/templates/:id/status",
    form,
    action(async (b, req) => {
      const event = field(b, "event") as TemplateEvent;
      const template = await ctx.sandbox.setTemplateStatus(String(req.params.id), event);
      return `${template.name} (${template.language}) is ${template.status}; ${event} webhook queued.`;
    }),
  );
  router.post(
    "/console/chaos",
    form,
    action((b) => {
      const duplicate = Number(field(b, "duplicate") || 0);
      const delayMs = Number(field(b, "delayMs") || 0);
      ctx.sandbox.setDeliveryChaos({ duplicate, delayMs, reorder: field(b, "reorder") === "on" });
      const c = ctx.sender.getChaos();
      return `Chaos: ${c.duplicate} duplicate(s), reorder ${c.reorder ? "on" : "off"}, delay ${c.delayMs} ms.`;
    }),
  );
  router.post(
    "/console/business",
    form,
    action((b) => {
      const created = ctx.sandbox.createTestBusiness({
        businessName: field(b, "businessName") || undefined,
        verifiedName: field(b, "verifiedName") || undefined,
        displayPhoneNumber: field(b, "displayPhoneNumber") || undefined,
      });
      return `Created business ${created.businessId} with number ${created.displayPhoneNumber}.`;
    }),
  );
  router.post(
    "/console/flush",
    form,
    action(async () => {
      await ctx.sandbox.flushWebhooks();
      return "Every queued webhook was delivered or gave up.";
    }),
  );
  router.post(
    "/console/reset",
    form,
    action(() => {
      ctx.sandbox.reset();
      return ctx.options.consoleDemo
        ? "Sandbox reset: only the demo business and the admin console's demo accounts are left."
        : "Sandbox reset: only the demo business is left.";
    }),
  );
  return router;
}

function renderConsole(ctx: SandboxContext, req: Request, res: Response) {
  const { store, options } = ctx;
  const base = escapeHtml(options.publicPath);
  const notice = typeof req.query.notice === "string" ? req.query.notice : "";
  const error = typeof req.query.error === "string" ? req.query.error : "";
  const now = options.now();
  const numbers = [...store.phoneNumbers.values()];
  const wabas = [...store.wabas.values()];

  const numberOptions = numbers
    .map((p) => `<option value="${escapeHtml(p.id)}">${escapeHtml(`${p.displayPhoneNumber} · ${p.verifiedName} (${p.id})`)}</option>`)
    .join("");
  const wabaOptions = wabas.map((w) => `<option value="${escapeHtml(w.id)}">${escapeHtml(`${w.name} (${w.id})`)}</option>`).join("");

  const businessRows = [...store.businesses.values()]
    .flatMap((b) =>
      wabas
        .filter((w) => w.businessId === b.id)
        .flatMap((w) => {
          const sub = store.subscriptions.get(w.id);
          const phones = numbers.filter((p) => p.wabaId === w.id);
          const subscribed = sub
            ? `${pill("yes")}${sub.overrideCallbackUri ? `<br><small>override ${escapeHtml(sub.overrideCallbackUri)}</small>` : ""}`
            : pill("no");
          const rows = phones.length ? phones : [undefined];
          return rows.map(
            (p) =>
              `<tr><td>${escapeHtml(b.name)}${b.demo ? " <small>(demo)</small>" : b.consoleDemo ? " <small>(admin console demo)</small>" : ""}<br><small><code>${escapeHtml(b.id)}</code></small></td>` +
              `<td>${escapeHtml(w.name)}<br><small><code>${escapeHtml(w.id)}</code></small></td><td>${subscribed}</td>` +
              (p
                ? `<td>${escapeHtml(p.displayPhoneNumber)}<br><small><code>${escapeHtml(p.id)}</code></small></td><td>${escapeHtml(p.verifiedName)}</td>` +
                  `<td>${pill(p.status)}</td><td>${pill(p.platformType === "CLOUD_API" ? "yes" : "no")}${p.registeredAt ? `<br><small>${escapeHtml(time(new Date(p.registeredAt).toISOString()))}</small>` : ""}</td>` +
                  `<td>${pill(p.qualityRating)}</td><td>${escapeHtml(p.messagingLimit)}<br><small>${escapeHtml(p.throughput)}</small></td><td>${p.pin ? "set" : "—"}</td>` +
                  `<td>${p.registrationCalls.filter((t) => t > now - 72 * 3600_000).length}/10</td>`
                : `<td colspan="8"><small>No numbers</small></td>`) +
              `</tr>`,
          );
        }),
    )
    .join("");

  const calls = ctx.calls.list().slice(-SHOW).reverse();
  const callRows = calls
    .map(
      (c) =>
        `<tr><td>${escapeHtml(time(c.at))}</td><td>${escapeHtml(c.method)}</td><td><code>${escapeHtml(c.path)}</code></td><td>${c.step ? escapeHtml(c.step) : "—"}</td>` +
        `<td>${pill(String(c.status))}${c.errorCode !== undefined ? ` <small>code ${c.errorCode}</small>` : ""}</td></tr>`,
    )
    .join("");

  const deliveries = ctx.sandbox.deliveries().slice(-SHOW).reverse();
  const deliveryRows = deliveries
    .map(
      (d) =>
        `<tr><td>${escapeHtml(time(d.at))}</td><td>${escapeHtml(d.fields.join(", ") || "—")}${d.copyOf ? " <small>(duplicate)</small>" : ""}</td><td>${pill(d.state)}</td>` +
        `<td>${d.attempts}</td><td>${d.lastStatus ?? "—"}${d.lastError ? `<br><small>${escapeHtml(d.lastError)}</small>` : ""}</td>` +
        `<td><details><summary>Body (${d.body.length} bytes)</summary><pre>${escapeHtml(d.body)}</pre><small>X-Hub-Signature-256: <code>${escapeHtml(d.signature)}</code></small></details></td></tr>`,
    )
    .join("");

  const chaos = ctx.sender.getChaos();
  const faults = ctx.faults.list();
  const templateRows = templatesTable(ctx, wabas);

  const body = `<main><header class="card"><h1>Meta sandbox</h1>
<p class="muted">Local stand-in for Meta's Graph API, Embedded Signup and WhatsApp webhooks. App <code>${escapeHtml(options.appId)}</code> · webhooks go to <code>${escapeHtml(ctx.webhookUrl())}</code> · partner business <code>${escapeHtml(store.partnerBusinessId)}</code>.</p>
<p><a href="${base}">Refresh</a> · <a href="${base}/control/state">state.json</a> · <a href="${base}/control/calls">calls.json</a> · <a href="${base}/control/deliveries">deliveries.json</a> · <a href="${base}/console/shop">The customer's cart (product messages)</a> · <a href="${base}/console/conversions">Conversion events</a></p>
${notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : ""}${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
</header>

<section class="card" aria-labelledby="h-businesses"><h2 id="h-businesses">Test businesses</h2>
<div role="region" aria-label="Test businesses table" tabindex="0"><table><thead><tr><th>Business</th><th>WABA</th><th>App subscribed</th><th>Number</th><th>Verified name</th><th>Status</th><th>Registered</th><th>Quality</th><th>Limit</th><th>PIN</th><th>Reg. calls (72 h)</th></tr></thead>
<tbody>${businessRows}</tbody></table></div>
${faults.length ? `<p><strong>Active faults:</strong> ${escapeHtml(faults.map((f) => `${f.step} → ${f.error.code} (${f.remaining} left)`).join("; "))}</p>` : ""}
</section>

<section class="card" aria-labelledby="h-templates"><h2 id="h-templates">Message templates</h2>
<p class="muted">The reviewer decides a submitted template ${escapeHtml(reviewDelayText(options.templateReviewDelayMs))} later, by its name: <code>reject</code> → rejected (INVALID_FORMAT); <code>recategorise</code> → approved, then UTILITY → MARKETING; else approved. The buttons send Meta's status webhook.</p>
${templateRows}
<form method="post" action="${base}/console/templates/review"><div class="actions"><button type="submit" class="secondary">Review pending templates now</button></div></form>
</section>

<section class="card" aria-labelledby="h-uploads"><h2 id="h-uploads">Uploads (Resumable Upload API)</h2>
<p class="muted">Samples of media headers: <code>POST /{app-id}/uploads</code>, then <code>POST /upload:…</code> with the bytes. A file name containing <code>cut-once</code> is cut short on its first send.</p>
${uploadsTable(ctx)}
</section>

<div class="grid">
<section class="card" aria-labelledby="h-inbound"><h2 id="h-inbound">Customer sends a text</h2>
<form method="post" action="${base}/console/inbound">
<label class="field" for="in-number">To business number</label><select id="in-number" name="phoneNumberId">${numberOptions}</select>
<label class="field" for="in-from">From (customer number)</label><input type="tel" id="in-from" name="from" value="${escapeHtml(DEFAULTS.from)}">
<label class="field" for="in-name">Customer profile name</label><input type="text" id="in-name" name="name" value="${escapeHtml(DEFAULTS.name)}">
<label class="field" for="in-text">Message</label><textarea id="in-text" name="text" rows="3" required>${escapeHtml(DEFAULTS.text)}</textarea>
<label class="field" for="in-age">Sent this many seconds ago (blank: now; 90000 is 25 hours, a closed window)</label><input type="number" id="in-age" name="ageSeconds" min="0" max="${MAX_AGE_SECONDS}" step="1">
<div class="actions"><button type="submit">Send inbound message</button></div></form></section>

<section class="card" aria-labelledby="h-ad"><h2 id="h-ad">Customer writes from an ad</h2>
<p class="muted">A made-up Click-to-WhatsApp ad: the message carries its <code>referral</code> (with a generated <code>ctwa_clid</code>). An answer within 24 hours opens a 72-hour free entry window (<code>pricing.type: free_entry_point</code>).</p>
<form method="post" action="${base}/console/from-ad">
<label class="field" for="ad-number">Business number the ad leads to</label><select id="ad-number" name="phoneNumberId">${numberOptions}</select>
<label class="field" for="ad-from">Number of the customer who tapped the ad</label><input type="tel" id="ad-from" name="from" value="${escapeHtml(DEFAULTS.from)}">
<label class="field" for="ad-name">That customer's profile name</label><input type="text" id="ad-name" name="name" value="${escapeHtml(DEFAULTS.name)}">
<label class="field" for="ad-source">Ad id</label><input type="text" inputmode="numeric" id="ad-source" name="sourceId" value="120226305854810726" required>
<label class="field" for="ad-headline">Ad headline</label><input type="text" id="ad-headline" name="headline" value="Maji safi kwa nyumba yako" required>
<label class="field" for="ad-body">Ad text</label><input type="text" id="ad-body" name="body" value="Tuma ujumbe upate bei ya leo." required>
<label class="field" for="ad-image">Ad picture URL (optional)</label><input type="url" id="ad-image" name="imageUrl">
<label class="field" for="ad-text">Their first message</label><textarea id="ad-text" name="text" rows="2" required>Habari! Naomba bei ya tanki la lita 1000.</textarea>
<div class="actions"><button type="submit">Send message from the ad</button></div></form></section>

<section class="card" aria-labelledby="h-status"><h2 id="h-status">Message status</h2>
<form method="post" action="${base}/console/status">
<label class="field" for="st-number">Business number</label><select id="st-number" name="phoneNumberId">${numberOptions}</select>
<label class="field" for="st-wamid">Message id (wamid)</label><input type="text" id="st-wamid" name="wamid" required placeholder="wamid.…">
<label class="field" for="st-status">Status</label><select id="st-status" name="status"><option>sent</option><option>delivered</option><option>read</option><option>failed</option></select>
<label class="field" for="st-recipient">Recipient (customer number)</label><input type="tel" id="st-recipient" name="recipientId" value="${escapeHtml(DEFAULTS.from)}" required>
<label class="field" for="st-code">Error code (failed only)</label><input type="number" id="st-code" name="errorCode" placeholder="131026">
<div class="actions"><button type="submit">Send status</button></div></form></section>

<section class="card" aria-labelledby="h-quality"><h2 id="h-quality">Quality update</h2>
<form method="post" action="${base}/console/quality">
<label class="field" for="q-number">Business number</label><select id="q-number" name="phoneNumberId">${numberOptions}</select>
<label class="field" for="q-event">Event</label><select id="q-event" name="event">${QUALITY_EVENTS.map((e) => `<option>${e}</option>`).join("")}</select>
<label class="field" for="q-limit">Current limit (optional)</label><input type="text" id="q-limit" name="currentLimit" placeholder="TIER_2K">
<div class="actions"><button type="submit">Send quality update</button></div></form>
<h2 id="h-account">Account update</h2>
<form method="post" action="${base}/console/account-update" aria-labelledby="h-account">
<label class="field" for="a-waba">WABA</label><select id="a-waba" name="wabaId">${wabaOptions}</select>
<label class="field" for="a-event">Event</label><input type="text" id="a-event" name="event" value="VERIFIED_ACCOUNT" required>
<div class="actions"><button type="submit">Send account update</button></div></form></section>

<section class="card" aria-labelledby="h-chaos"><h2 id="h-chaos">Delivery chaos</h2>
<form method="post" action="${base}/console/chaos">
<label class="field" for="c-dup">Extra copies of each delivery</label><input type="number" id="c-dup" name="duplicate" min="0" max="10" value="${chaos.duplicate}">
<label class="field" for="c-delay">Delay before first attempt (ms)</label><input type="number" id="c-delay" name="delayMs" min="0" max="120000" value="${chaos.delayMs}">
<div class="choice"><input type="checkbox" id="c-reorder" name="reorder"${chaos.reorder ? " checked" : ""}><label for="c-reorder">Reorder: one change per POST, held and sent in reverse</label></div>
<div class="actions"><button type="submit">Set chaos</button></div></form>
<h2 id="h-more">More</h2>
<form method="post" action="${base}/console/business" aria-labelledby="h-more">
<label class="field" for="b-name">New test business name</label><input type="text" id="b-name" name="businessName" placeholder="Duka la Mama Njeri">
<label class="field" for="b-verified">Display name</label><input type="text" id="b-verified" name="verifiedName">
<label class="field" for="b-phone">Phone number</label><input type="tel" id="b-phone" name="displayPhoneNumber" placeholder="blank: random +254 7…">
<div class="actions"><button type="submit" class="secondary">Create test business</button></div></form>
<form method="post" action="${base}/console/flush"><div class="actions"><button type="submit" class="secondary">Flush webhooks</button></div></form>
<form method="post" action="${base}/console/reset"><div class="actions"><button type="submit" class="secondary">Reset sandbox</button></div></form>
</section>
</div>

<section class="card" aria-labelledby="h-messages"><h2 id="h-messages">Messages sent (last ${SHOW}, newest first)</h2>
<p class="muted">Accepted by <code>POST /{phone-number-id}/messages</code>, with the statuses sent so far. Magic recipients by the last four digits: <code>0000</code> fails (131026), <code>0047</code> fails (131047), <code>1049</code> fails (131049), <code>0002</code> delivered only, <code>0003</code> sent only; <code>0429</code>, <code>1056</code>, <code>0190</code> and <code>0500</code> are refused at once. <a href="${base}/control/messages">messages.json</a></p>
${messagesTable(ctx)}
</section>

<section class="card" aria-labelledby="h-calls"><h2 id="h-calls">Graph calls received (last ${SHOW}, newest first)</h2>
${calls.length ? `<div role="region" aria-label="Graph calls table" tabindex="0"><table><thead><tr><th>Time</th><th>Method</th><th>Path</th><th>Step</th><th>Status</th></tr></thead><tbody>${callRows}</tbody></table></div>` : `<p class="muted">No Graph calls yet.</p>`}
</section>

<section class="card" aria-labelledby="h-webhooks"><h2 id="h-webhooks">Webhooks sent (last ${SHOW}, newest first)</h2>
${deliveries.length ? `<div role="region" aria-label="Webhooks table" tabindex="0"><table><thead><tr><th>Time</th><th>Fields</th><th>State</th><th>Attempts</th><th>Last HTTP status</th><th>Body</th></tr></thead><tbody>${deliveryRows}</tbody></table></div>` : `<p class="muted">No webhooks yet.</p>`}
</section></main>`;
  page(res, { title: "Meta sandbox · Jumbe", body, width: 1180 });
}

/** The last messages the sandbox accepted, with their outcome and the statuses sent so far. */
function messagesTable(ctx: SandboxContext) {
  const messages = ctx.sandbox.messages().slice(-SHOW).reverse();
  if (messages.length === 0) return `<p class="muted">No messages yet.</p>`;
  const rows = messages
    .map((m) => {
      const what = m.template
        ? `template <code>${escapeHtml(m.template.name)}</code> (${escapeHtml(m.template.language)})`
        : escapeHtml(m.type);
      const text =
        typeof (m.body.text as { body?: unknown } | undefined)?.body === "string"
          ? String((m.body.text as { body: string }).body)
          : interactiveText(m.body);
      return (
        `<tr><td>${escapeHtml(time(m.acceptedAt))}</td><td>+${escapeHtml(m.waId)}<br><small><code>${escapeHtml(m.phoneNumberId)}</code></small></td>` +
        `<td>${what}${text ? `<br><small>${escapeHtml(text.slice(0, 120))}</small>` : ""}${tapForms(ctx, m)}</td>` +
        `<td>${m.statuses.map(pill).join(" ") || pill("pending")}<br><small>${escapeHtml(m.outcome)}</small></td>` +
        `<td>${m.pricing ? `${escapeHtml(m.pricing.type)}<br><small>${escapeHtml(m.pricing.category)}</small>` : "—"}</td>` +
        `<td><small><code>${escapeHtml(m.wamid.slice(0, 28))}…</code></small></td></tr>`
      );
    })
    .join("");
  return (
    `<div role="region" aria-label="Messages table" tabindex="0"><table><thead><tr><th>Time</th><th>To</th><th>Message</th>` +
    `<th>Statuses</th><th>Pricing</th><th>wamid</th></tr></thead><tbody>${rows}</tbody></table></div>`
  );
}

/** An interactive message's body text. */
function interactiveText(body: Record<string, unknown>): string {
  const text = (body.interactive as { body?: { text?: unknown } } | undefined)?.body?.text;
  return typeof text === "string" ? text : "";
}

/** A reply-button message's buttons, each a form that taps it as the customer would (JavaScript not needed). */
function tapForms(ctx: SandboxContext, m: ReturnType<SandboxContext["sandbox"]["messages"]>[number]) {
  const interactive = m.body.interactive as
    { type?: string; action?: { buttons?: { reply?: { id?: unknown; title?: unknown } }[] } } | undefined;
  if (interactive?.type !== "button") return "";
  const buttons = (interactive.action?.buttons ?? []).flatMap((b) =>
    typeof b.reply?.id === "string" && typeof b.reply.title === "string" ? [{ id: b.reply.id, title: b.reply.title }] : [],
  );
  return buttons
    .map(
      (b) =>
        `<form method="post" action="${escapeHtml(ctx.options.publicPath)}/console/tap" class="inline">` +
        `<input type="hidden" name="phoneNumberId" value="${escapeHtml(m.phoneNumberId)}">` +
        `<input type="hidden" name="from" value="${escapeHtml(m.waId)}">` +
        `<input type="hidden" name="contextId" value="${escapeHtml(m.wamid)}">` +
        `<input type="hidden" name="replyId" value="${escapeHtml(b.id)}">` +
        `<input type="hidden" name="title" value="${escapeHtml(b.title)}">` +
        `<button type="submit">Tap “${escapeHtml(b.title)}”</button></form>`,
    )
    .join(" ");
}

/** The last uploads: what arrived and the handle issued. */
function uploadsTable(ctx: SandboxContext) {
  const uploads = ctx.sandbox.uploads().slice(-20).reverse();
  if (uploads.length === 0) return `<p class="muted">No uploads yet.</p>`;
  const base = escapeHtml(ctx.options.publicPath);
  const rows = uploads
    .map((u) => {
      const key = u.id.replace(/^upload:/, "");
      const name = u.handle ? `<a href="${base}/uploads/${escapeHtml(key)}">${escapeHtml(u.fileName)}</a>` : escapeHtml(u.fileName);
      return (
        `<tr><td>${escapeHtml(time(u.createdAt))}</td><td>${name}<br><small><code>${escapeHtml(u.id.slice(0, 24))}…</code></small></td>` +
        `<td>${escapeHtml(u.fileType)}</td><td>${u.fileOffset.toLocaleString("en")} / ${u.fileLength.toLocaleString("en")} bytes</td>` +
        `<td>${u.handle ? `${pill("yes")}<br><small><code>${escapeHtml(u.handle.slice(0, 24))}…</code></small>` : pill("pending")}</td></tr>`
      );
    })
    .join("");
  return (
    `<div role="region" aria-label="Uploads table" tabindex="0"><table><thead><tr><th>Time</th><th>File</th><th>Type</th>` +
    `<th>Received</th><th>Handle</th></tr></thead><tbody>${rows}</tbody></table></div>`
  );
}

const reviewDelayText = (ms: number) => (ms === 0 ? "right" : ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

const TEMPLATE_BUTTONS: { event: TemplateEvent; label: string; when: (status: string) => boolean }[] = [
  { event: "APPROVED", label: "Approve", when: (s) => s !== "APPROVED" },
  { event: "REJECTED", label: "Reject", when: (s) => s !== "REJECTED" },
  { event: "PAUSED", label: "Pause", when: (s) => s === "APPROVED" },
  { event: "DISABLED", label: "Disable", when: (s) => s !== "DISABLED" },
];

/** Every template with buttons that change its status by hand (plain forms: no JavaScript needed). */
function templatesTable(ctx: SandboxContext, wabas: { id: string; name: string }[]) {
  const templates = ctx.sandbox.templates();
  if (templates.length === 0) return `<p class="muted">No templates yet: the app creates them through the Graph API.</p>`;
  const base = escapeHtml(ctx.options.publicPath);
  const wabaName = (id: string) => wabas.find((w) => w.id === id)?.name ?? id;
  const rows = templates
    .map((t) => {
      const buttons = TEMPLATE_BUTTONS.filter((b) => b.when(t.status))
        .map(
          (b) =>
            `<form method="post" action="${base}/console/templates/${escapeHtml(t.id)}/status"><input type="hidden" name="event" value="${b.event}">` +
            `<button type="submit" class="secondary" aria-label="${escapeHtml(`${b.label} ${t.name} (${t.language})`)}">${b.label}</button></form>`,
        )
        .join("");
      const category = t.previousCategory ? `${t.category}<br><small>was ${t.previousCategory}</small>` : t.category;
      const status = `${pill(t.status)}${t.status === "REJECTED" ? `<br><small>${escapeHtml(t.rejectedReason)}</small>` : ""}`;
      return (
        `<tr><td>${escapeHtml(wabaName(t.wabaId))}<br><small><code>${escapeHtml(t.wabaId)}</code></small></td>` +
        `<td>${escapeHtml(t.name)}<br><small><code>${escapeHtml(t.id)}</code></small></td><td>${escapeHtml(t.language)}</td>` +
        `<td>${category}</td><td>${status}</td><td>${pill(t.qualityScore)}</td><td><div class="actions tight">${buttons}</div></td></tr>`
      );
    })
    .join("");
  return (
    `<div role="region" aria-label="Message templates table" tabindex="0"><table><thead><tr><th>WABA</th><th>Name</th><th>Language</th>` +
    `<th>Category</th><th>Status</th><th>Quality</th><th>Change status</th></tr></thead><tbody>${rows}</tbody></table></div>`
  );
}
