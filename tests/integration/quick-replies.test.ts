import { Refusal } from "~/.server/infrastructure/refusal";
import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { users } from "~/.server/infrastructure/db/schema";
import { hashPassword } from "~/.server/domains/auth/password";
import { createQuickReply, listQuickReplies } from "~/.server/domains/inbox/quick-replies";
import { QUICK_REPLIES_MAX, QUICK_REPLY_MESSAGES } from "~/lib/schemas/quick-replies";
import { action, loader } from "~/routes/app/chat/quick-replies";
import { loader as searchLoader } from "~/routes/app/search";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie, uniqueEmail } from "../support/accounts";
import { APP, formRequest, getRequest, run } from "../support/http";

// Issue 16: the organisation's saved answers, kept by owners and admins at /chat/quick-replies and
// inserted by agents in the composer with `/` and the shortcut.

const PAGE = "/chat/quick-replies";

/** An organisation with its owner signed in, and an agent of the same organisation. */
async function organisation() {
  const owner = await createVerifiedUser({ businessName: "Nyota Sacco" });
  const agentEmail = uniqueEmail("agent");
  await db()
    .insert(users)
    .values({
      organizationId: owner.organization.id,
      email: agentEmail,
      firstName: "Brian",
      lastName: "Otieno",
      orgRole: "agent",
      passwordHash: await hashPassword("Agent#Pass12"),
      isVerified: true,
    });
  return {
    owner,
    organizationId: owner.organization.id,
    cookie: await signedInCookie(owner.email, owner.password),
    agentCookie: await signedInCookie(agentEmail, "Agent#Pass12"),
  };
}

const post = (cookie: string, fields: Record<string, string>) => run(action, formRequest(PAGE, fields, { cookie }));

async function stored(organizationId: string) {
  return rawQuery<{ id: string; shortcut: string; body: string }>(
    `select id, shortcut, body from quick_replies where organization_id = $1 order by lower(shortcut)`,
    [organizationId],
  );
}

async function activity(organizationId: string) {
  return (
    await rawQuery<{ action: string; details: string }>(
      `select action, details from activity_logs where organization_id = $1 and action like 'Saved answer%' order by created_at, id`,
      [organizationId],
    )
  ).map((r) => `${r.action}: ${r.details}`);
}

describe("saved answers", () => {
  it("adds one (the slash typed or not), lists them by shortcut and records it in the activity log", async () => {
    const { organizationId, cookie } = await organisation();
    const added = await post(cookie, { intent: "add", shortcut: "/hours", body: "  Open Monday to Friday, 8 am to 5 pm.  " });
    expect(added.status).toBe(302);
    expect(added.location).toBe(PAGE);
    expect(added.setCookies.join(";")).toContain("toast");
    expect(
      await post(cookie, { intent: "add", shortcut: "Mpesa_paybill-2", body: "Paybill 522522, account your member number." }),
    ).toMatchObject({ status: 302 });
    expect((await stored(organizationId)).map((r) => [r.shortcut, r.body])).toEqual([
      ["hours", "Open Monday to Friday, 8 am to 5 pm."],
      ["Mpesa_paybill-2", "Paybill 522522, account your member number."],
    ]);
    expect((await listQuickReplies(organizationId)).map((r) => r.shortcut)).toEqual(["hours", "Mpesa_paybill-2"]);
    const page = await run(loader, getRequest(PAGE, { cookie }));
    expect(page.status).toBe(200);
    expect(page.data.replies.map((r: { shortcut: string }) => r.shortcut)).toEqual(["hours", "Mpesa_paybill-2"]);
    expect(await activity(organizationId)).toEqual(["Saved answer added: /hours", "Saved answer added: /Mpesa_paybill-2"]);
  });

  it("refuses a shortcut already used, whatever its case, at the field", async () => {
    const { organizationId, cookie } = await organisation();
    await post(cookie, { intent: "add", shortcut: "hours", body: "Open 8 to 5." });
    const again = await post(cookie, { intent: "add", shortcut: "HOURS", body: "Another text." });
    expect(again.status).toBe(409);
    expect(again.data.result.error).toEqual({ shortcut: [QUICK_REPLY_MESSAGES.shortcutTaken] });
    // The form comes back as it was sent.
    expect(again.data.result.initialValue).toMatchObject({ shortcut: "HOURS", body: "Another text." });
    expect((await stored(organizationId)).map((r) => r.body)).toEqual(["Open 8 to 5."]);
  });

  it("refuses a bad shortcut and a blank or overlong answer with the reason at the field, storing nothing", async () => {
    const { organizationId, cookie } = await organisation();
    const cases: [Record<string, string>, Record<string, string[]>][] = [
      [{ shortcut: "opening hours", body: "Open 8 to 5." }, { shortcut: [QUICK_REPLY_MESSAGES.shortcutFormat] }],
      [{ shortcut: "saa/kazi", body: "Open 8 to 5." }, { shortcut: [QUICK_REPLY_MESSAGES.shortcutFormat] }],
      [{ shortcut: "x".repeat(31), body: "Open 8 to 5." }, { shortcut: [QUICK_REPLY_MESSAGES.shortcutTooLong] }],
      [{ shortcut: "   ", body: "Open 8 to 5." }, { shortcut: [QUICK_REPLY_MESSAGES.shortcutRequired] }],
      [{ shortcut: "hours", body: " \n  " }, { body: [QUICK_REPLY_MESSAGES.bodyRequired] }],
      [{ shortcut: "hours", body: "a".repeat(1001) }, { body: [QUICK_REPLY_MESSAGES.bodyTooLong] }],
      [{ body: "Open 8 to 5." }, { shortcut: [QUICK_REPLY_MESSAGES.shortcutRequired] }],
    ];
    for (const [fields, errors] of cases) {
      const answer = await post(cookie, { intent: "add", ...fields });
      expect(answer.status, JSON.stringify(fields).slice(0, 60)).toBe(400);
      expect(answer.data.result.error).toEqual(errors);
    }
    // At the limits exactly: 30 characters of letters (any script), digits, - and _; 1,000 characters.
    expect((await post(cookie, { intent: "add", shortcut: `habari-${"ü".repeat(23)}`, body: "b".repeat(1000) })).status).toBe(302);
    expect((await stored(organizationId)).map((r) => r.shortcut)).toEqual([`habari-${"ü".repeat(23)}`]);
    // The domain checks the same for callers that skip the form.
    await expect(
      createQuickReply({ organizationId, userId: null, role: "owner" }, { shortcut: "two words", body: "x" }),
    ).rejects.toMatchObject({ status: 400, field: "shortcut" });
    expect(await stored(organizationId)).toHaveLength(1);
  });

  it("changes a saved answer's shortcut and text, refusing another's shortcut at the field", async () => {
    const { organizationId, cookie } = await organisation();
    await post(cookie, { intent: "add", shortcut: "hours", body: "Open 8 to 5." });
    await post(cookie, { intent: "add", shortcut: "mpesa", body: "Paybill 522522." });
    const [hours, mpesa] = await stored(organizationId);
    const editing = await run(loader, getRequest(`${PAGE}?edit=${hours!.id}`, { cookie }));
    expect(editing.data.editing).toEqual({ id: hours!.id, shortcut: "hours", body: "Open 8 to 5." });

    const changed = await post(cookie, {
      intent: "update",
      id: hours!.id,
      shortcut: "Saa",
      body: "Tuko wazi saa mbili hadi saa kumi na moja.",
    });
    expect(changed.status).toBe(302);
    expect(changed.location).toBe(PAGE);
    const taken = await post(cookie, { intent: "update", id: mpesa!.id, shortcut: "SAA", body: "Paybill 522522." });
    expect(taken.status).toBe(409);
    expect(taken.data.result.error).toEqual({ shortcut: [QUICK_REPLY_MESSAGES.shortcutTaken] });
    const blank = await post(cookie, { intent: "update", id: mpesa!.id, shortcut: "mpesa", body: "" });
    expect(blank.status).toBe(400);
    expect(blank.data.result.error).toEqual({ body: [QUICK_REPLY_MESSAGES.bodyRequired] });
    // Its own shortcut in another case is the same shortcut.
    expect((await post(cookie, { intent: "update", id: mpesa!.id, shortcut: "MPesa", body: "Paybill 522522." })).status).toBe(302);
    expect((await stored(organizationId)).map((r) => [r.shortcut, r.body])).toEqual([
      ["MPesa", "Paybill 522522."],
      ["Saa", "Tuko wazi saa mbili hadi saa kumi na moja."],
    ]);
    expect(await activity(organizationId)).toEqual([
      "Saved answer added: /hours",
      "Saved answer added: /mpesa",
      "Saved answer changed: /hours is now /Saa",
      "Saved answer changed: /mpesa is now /MPesa",
    ]);
  });

  it("deletes one once confirmed", async () => {
    const { organizationId, cookie } = await organisation();
    await post(cookie, { intent: "add", shortcut: "hours", body: "Open 8 to 5." });
    const [hours] = await stored(organizationId);
    const asking = await run(loader, getRequest(`${PAGE}?confirm=delete&reply=${hours!.id}`, { cookie }));
    expect(asking.data.deleting).toMatchObject({ shortcut: "hours" });
    const unconfirmed = await post(cookie, { intent: "delete", id: hours!.id });
    expect(unconfirmed.status).toBe(400);
    expect(await stored(organizationId)).toHaveLength(1);
    const deleted = await post(cookie, { intent: "delete", id: hours!.id, confirm: "yes" });
    expect(deleted.status).toBe(302);
    expect(await stored(organizationId)).toEqual([]);
    expect(await activity(organizationId)).toContain("Saved answer deleted: /hours");
  });

  it("answers 404 for another organisation's saved answer or an unknown id, and changes nothing", async () => {
    const mine = await organisation();
    const theirs = await organisation();
    await post(theirs.cookie, { intent: "add", shortcut: "hours", body: "Their text." });
    const [foreign] = await stored(theirs.organizationId);
    for (const id of [foreign!.id, "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", "not-an-id", ""]) {
      expect((await post(mine.cookie, { intent: "update", id, shortcut: "hours", body: "Mine now." })).status, id).toBe(404);
      expect((await post(mine.cookie, { intent: "delete", id, confirm: "yes" })).status, id).toBe(404);
    }
    expect((await run(loader, getRequest(`${PAGE}?edit=${foreign!.id}`, { cookie: mine.cookie }))).status).toBe(404);
    expect((await run(loader, getRequest(`${PAGE}?confirm=delete&reply=${foreign!.id}`, { cookie: mine.cookie }))).status).toBe(404);
    expect(await stored(theirs.organizationId)).toMatchObject([{ shortcut: "hours", body: "Their text." }]);
    expect(await stored(mine.organizationId)).toEqual([]);
    // An intent the page does not have.
    expect((await post(mine.cookie, { intent: "publish" })).status).toBe(400);
  });

  it("refuses an agent's posts (403) and changes nothing", async () => {
    const { organizationId, cookie, agentCookie } = await organisation();
    await post(cookie, { intent: "add", shortcut: "hours", body: "Open 8 to 5." });
    const [hours] = await stored(organizationId);
    const before = await stored(organizationId);
    const logged = await activity(organizationId);
    for (const fields of <Record<string, string>[]>[
      { intent: "add", shortcut: "mine", body: "An agent's answer." },
      { intent: "update", id: hours!.id, shortcut: "hours", body: "Changed by an agent." },
      { intent: "delete", id: hours!.id, confirm: "yes" },
    ]) {
      // The page's guard sends them to the refusal page...
      const refused = await post(agentCookie, fields);
      expect(refused.status, fields.intent).toBe(302);
      expect(refused.location).toBe("/unauthorized");
      // ...which answers 403, as the whole request through the application's router does.
      const request = formRequest(PAGE, fields, { cookie: agentCookie });
      const routed = await appFetch(request);
      expect(routed.status).toBe(302);
      expect(routed.headers.get("location")).toBe("/unauthorized");
    }
    const page = await appFetch(new Request(`${APP}/unauthorized`, { headers: { cookie: agentCookie } }));
    expect(page.status).toBe(403);
    // The domain refuses an agent too, whoever calls it.
    await expect(
      createQuickReply({ organizationId, userId: null, role: "agent" }, { shortcut: "mine", body: "An agent's answer." }),
    ).rejects.toBeInstanceOf(Refusal);
    await expect(createQuickReply({ organizationId, userId: null, role: "viewer" }, { shortcut: "mine", body: "x" })).rejects.toMatchObject(
      { status: 403 },
    );
    expect(await stored(organizationId)).toEqual(before);
    expect(await activity(organizationId)).toEqual(logged);
  });

  it("keeps at most 200 saved answers an organisation", async () => {
    const { organizationId, cookie } = await organisation();
    await rawQuery(
      `insert into quick_replies (organization_id, shortcut, body)
       select $1, 'answer-' || n, 'Saved answer number ' || n from generate_series(1, $2::int - 1) as n`,
      [organizationId, QUICK_REPLIES_MAX],
    );
    expect((await post(cookie, { intent: "add", shortcut: "last", body: "The 200th." })).status).toBe(302);
    expect(await stored(organizationId)).toHaveLength(QUICK_REPLIES_MAX);
    const over = await post(cookie, { intent: "add", shortcut: "one-more", body: "The 201st." });
    expect(over.status).toBe(409);
    expect(over.data.toast.message).toBe(QUICK_REPLY_MESSAGES.limit);
    expect(await stored(organizationId)).toHaveLength(QUICK_REPLIES_MAX);
    expect((await stored(organizationId)).some((r) => r.shortcut === "one-more")).toBe(false);
    // The page says so instead of offering the form; changing one is still possible.
    expect((await run(loader, getRequest(PAGE, { cookie }))).data.full).toBe(true);
    const [first] = await stored(organizationId);
    expect((await post(cookie, { intent: "update", id: first!.id, shortcut: first!.shortcut, body: "Changed." })).status).toBe(302);
  });

  it("is found by the search as Saved answers, by those who keep them only", async () => {
    const { cookie, agentCookie } = await organisation();
    const pages = async (who: string, q: string) =>
      (
        ((await run(searchLoader, getRequest(`/search?q=${q}`, { cookie: who }))).data.sections ?? []) as {
          id: string;
          hits: { title: string; to: string }[];
        }[]
      )
        .find((s) => s.id === "pages")
        ?.hits.filter((h) => h.to === PAGE)
        .map((h) => h.title) ?? [];
    expect(await pages(cookie, "saved+answers")).toEqual(["Saved answers"]);
    expect(await pages(cookie, "quick+replies")).toEqual(["Saved answers"]);
    expect(await pages(agentCookie, "saved+answers")).toEqual([]);
  });
});
