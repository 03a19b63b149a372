import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { users } from "~/.server/infrastructure/db/schema";
import { hashPassword } from "~/.server/domains/auth/password";
import { createFlow, getFlow } from "~/.server/domains/automations/flows/store";
import * as list from "~/routes/app/automations/flows";
import * as builder from "~/routes/app/automations/flow";
import * as newFlow from "~/routes/app/automations/flow-new";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie, uniqueEmail } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";

// The flows' pages, driven as a browser without JavaScript drives them: plain form posts and GET
// page states (?add=question, ?step=<id>, ?confirm=delete&flow=<id>), each answered by a redirect
// or the page again with what is wrong at its field.

const LIST = "/automations/flows";
const NEW = "/automations/flows/new";
const NOBODY = "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f";

async function organisation(name = "Nyota Flows Sacco") {
  const owner = await createVerifiedUser({ businessName: name });
  const organizationId = owner.organization.id;
  const email = uniqueEmail("viewer");
  await db()
    .insert(users)
    .values({
      organizationId,
      email,
      firstName: "Peter",
      lastName: "Otieno",
      orgRole: "viewer",
      passwordHash: await hashPassword("Member#Pass12"),
      isVerified: true,
    });
  return {
    organizationId,
    actor: { organizationId, userId: owner.user.id },
    cookie: await signedInCookie(owner.email, owner.password),
    viewer: await signedInCookie(email, "Member#Pass12"),
  };
}

const html = async (path: string, cookie: string) => {
  const response = await appFetch(getRequest(path, { cookie, headers: { accept: "text/html" } }));
  return { status: response.status, text: (await response.text()).replace(/<!-- -->/g, "") };
};
const post = (
  handler: typeof list.action | typeof builder.action | typeof newFlow.action,
  path: string,
  cookie: string,
  fields: Record<string, string>,
  id?: string,
) => run(handler, formRequest(path, fields, { cookie }), { params: id ? { id } : {} });

describe("the flows' pages", () => {
  it("builds a flow without JavaScript: name it, choose a step kind, add, edit, move, delete and publish", async () => {
    const t = await organisation();
    const empty = await html(LIST, t.cookie);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain("No flows yet.");
    expect(empty.text).toContain("0 of 50 flows; up to 25 steps a flow.");
    expect((await html("/automations", t.cookie)).text).toContain('href="/automations/flows"');

    const created = await post(newFlow.action, NEW, t.cookie, { intent: "create", name: "Order status" });
    expect(created.status).toBe(302);
    const id = created.location!.split("/").pop()!;
    expect(created.location).toBe(`${LIST}/${id}`);
    // The kind of step is chosen by a GET form: its page state shows that kind's form.
    const page = await html(`${LIST}/${id}`, t.cookie);
    expect(page.text).toContain('name="add"');
    expect(page.text).toContain("Not published yet");
    const chosen = await html(`${LIST}/${id}?add=question`, t.cookie);
    expect(chosen.text).toContain('name="variable"');
    expect(chosen.text).toContain('value="save-step"');

    const here = `${LIST}/${id}`;
    const question = {
      intent: "save-step",
      type: "question",
      stepId: "",
      text: "Namba ya oda?",
      input: "text",
      choices: "",
      listButton: "",
      validate: "number",
      variable: "order",
      retryText: "Andika namba.",
      maxTries: "3",
      giveUpTo: "end",
    };
    expect((await post(builder.action, here, t.cookie, question, id)).status).toBe(302);
    const message = {
      intent: "save-step",
      type: "message",
      stepId: "",
      text: "Oda {{order}} imepokelewa.",
      buttons: "",
      rows: "",
      listButton: "",
      mediaUrl: "",
      mediaKind: "image",
    };
    expect((await post(builder.action, here, t.cookie, message, id)).status).toBe(302);
    // Four buttons: the form again, said at its field, as it was sent.
    const refused = await post(builder.action, here, t.cookie, { ...message, buttons: "Moja\nMbili\nTatu\nNne" }, id);
    expect(refused.status).toBe(400);
    expect(refused.data).toMatchObject({
      stepForm: {
        type: "message",
        values: { buttons: "Moja\nMbili\nTatu\nNne" },
        errors: { buttons: [expect.stringContaining("Up to 3 buttons")] },
      },
    });
    let flow = await getFlow(t.organizationId, id);
    expect(flow.steps.map((s) => s.type)).toEqual(["question", "message"]);
    const [asked, said] = flow.steps;
    // Edit the message (its page state), then move it up, then back down.
    expect((await html(`${here}?step=${said!.id}`, t.cookie)).text).toContain("Oda {{order}} imepokelewa.");
    expect((await post(builder.action, here, t.cookie, { ...message, stepId: said!.id, text: "Asante! Oda {{order}}." }, id)).status).toBe(
      302,
    );
    expect((await post(builder.action, here, t.cookie, { intent: "move-step", stepId: said!.id, direction: "up" }, id)).status).toBe(302);
    flow = await getFlow(t.organizationId, id);
    expect(flow.steps.map((s) => s.id)).toEqual([said!.id, asked!.id]);
    expect(flow.steps[0]).toMatchObject({ text: "Asante! Oda {{order}}." });
    await post(builder.action, here, t.cookie, { intent: "move-step", stepId: said!.id, direction: "down" }, id);
    // A branch's targets are written as "go to step N" on the page.
    const branch = {
      intent: "save-step",
      type: "branch",
      stepId: "",
      source: "answer",
      key: "",
      operator: "equals",
      value: "1",
      then: said!.id,
      else: "end",
    };
    expect((await post(builder.action, here, t.cookie, branch, id)).status).toBe(302);
    const built = await html(here, t.cookie);
    expect(built.text).toContain("then go to step 2");
    expect(built.text).toContain("otherwise go to the end");
    // A step another leads to cannot be deleted until that one changes.
    const blocked = await post(builder.action, here, t.cookie, { intent: "delete-step", stepId: said!.id }, id);
    expect(blocked.status).toBe(400);
    const branchId = (await getFlow(t.organizationId, id)).steps[2]!.id;
    expect((await post(builder.action, here, t.cookie, { intent: "delete-step", stepId: branchId }, id)).status).toBe(302);

    expect((await post(builder.action, here, t.cookie, { intent: "publish" }, id)).status).toBe(302);
    expect(await getFlow(t.organizationId, id)).toMatchObject({ status: "live", liveVersion: 1, unpublished: false });
    expect((await html(here, t.cookie)).text).toContain("Version 1 is live.");
    const settings = await post(
      builder.action,
      here,
      t.cookie,
      { intent: "settings", name: "Order status", idleMinutes: "0", idleText: "" },
      id,
    );
    expect(settings.status).toBe(400);
    expect(settings.data).toMatchObject({ errors: { idleMinutes: [expect.stringContaining("idle time")] } });
    expect(
      (
        await post(
          builder.action,
          here,
          t.cookie,
          { intent: "settings", name: "Order status", idleMinutes: "45", idleText: "Baadaye!" },
          id,
        )
      ).status,
    ).toBe(302);
    expect(await getFlow(t.organizationId, id)).toMatchObject({ idleMinutes: 45, idleText: "Baadaye!" });

    // The list: turn off, and delete only after the confirm-by-URL.
    expect((await post(list.action, LIST, t.cookie, { intent: "disable", id })).status).toBe(302);
    expect((await getFlow(t.organizationId, id)).status).toBe("off");
    const confirm = await run(list.loader, getRequest(`${LIST}?confirm=delete&flow=${id}`, { cookie: t.cookie }));
    expect(confirm.data).toMatchObject({ deleting: { id, name: "Order status" } });
    expect((await post(list.action, LIST, t.cookie, { intent: "delete", id })).status).toBe(400);
    expect((await post(list.action, LIST, t.cookie, { intent: "delete", id, confirm: "yes" })).status).toBe(302);
    expect(await rawQuery(`select id from flows where organization_id = $1`, [t.organizationId])).toEqual([]);
  });

  it("says at the address's field, without JavaScript, that an HTTP step may not call a private or loopback address", async () => {
    const t = await organisation("Flows Address Guard");
    const flow = await createFlow(t.actor, { name: "Order lookup" });
    const here = `${LIST}/${flow.id}`;
    const step = { intent: "save-step", type: "http", stepId: "", method: "GET", url: "http://127.0.0.1/orders", body: "", saveAs: "http" };
    const refused = await post(builder.action, here, t.cookie, step, flow.id);
    expect(refused.status).toBe(400);
    expect(refused.data).toMatchObject({
      stepForm: { type: "http", errors: { url: ["The address must not point to a private, loopback or link-local network."] } },
    });
    const hosted = await post(builder.action, here, t.cookie, { ...step, url: "https://{{shop}}/orders" }, flow.id);
    expect(hosted.data).toMatchObject({
      stepForm: { errors: { url: [expect.stringContaining("cannot form the address's scheme or host")] } },
    });
    expect((await getFlow(t.organizationId, flow.id)).steps).toEqual([]);
  });

  it("shows flows to a viewer without a way to change them, and refuses their posts", async () => {
    const t = await organisation();
    const flow = await createFlow(t.actor, { name: "Delivery areas" });
    const seen = await html(`${LIST}/${flow.id}`, t.viewer);
    expect(seen.status).toBe(200);
    expect(seen.text).toContain("Delivery areas");
    expect(seen.text).not.toContain('name="intent" value="publish"');
    for (const [handler, path, fields, id] of [
      [list.action, LIST, { intent: "delete", id: flow.id, confirm: "yes" }],
      [newFlow.action, NEW, { intent: "create", name: "Mine" }],
      [builder.action, `${LIST}/${flow.id}`, { intent: "publish" }, flow.id],
    ] as const) {
      const refused = await post(handler, path, t.viewer, fields, id);
      expect([refused.status, refused.location]).toEqual([302, "/unauthorized"]);
    }
    expect((await html(NEW, t.viewer)).status).toBe(302);
  });

  it("answers 404 for another organisation's flow or an unknown id", async () => {
    const mine = await organisation();
    const theirs = await organisation("Pwani Flows");
    const foreign = await createFlow(theirs.actor, { name: "Theirs" });
    for (const id of [foreign.id, NOBODY, "not-an-id"]) {
      expect((await run(builder.loader, getRequest(`${LIST}/${id}`, { cookie: mine.cookie }), { params: { id } })).status, id).toBe(404);
      expect((await post(builder.action, `${LIST}/${id}`, mine.cookie, { intent: "publish" }, id)).status, id).toBe(404);
      expect((await post(list.action, LIST, mine.cookie, { intent: "delete", id, confirm: "yes" })).status, id).toBe(404);
      expect((await run(list.loader, getRequest(`${LIST}?confirm=delete&flow=${id}`, { cookie: mine.cookie }))).status).toBe(404);
    }
    expect((await html(`${LIST}/${foreign.id}`, mine.cookie)).status).toBe(404);
    expect((await getFlow(theirs.organizationId, foreign.id)).name).toBe("Theirs");
  });
});
