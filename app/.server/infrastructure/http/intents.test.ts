import { describe, expect, expectTypeOf, test } from "vitest";
import * as z from "zod/mini";
import type { Permission } from "~/lib/permissions";
import { Refusal } from "../refusal";
import { intentActions } from "./intents";
import { postedText } from "./posted-fields";

/** A guard that records what it was asked and refuses a role that lacks a permission, as the pages' guard does (by throwing). */
function guarded(holds: readonly Permission[]) {
  const asked: (readonly Permission[])[] = [];
  const { intent, intentAction, formAction } = intentActions(async (_args, needed) => {
    asked.push(needed);
    if (!needed.every((permission) => holds.includes(permission)))
      throw new Response(null, { status: 302, headers: { Location: "/unauthorized" } });
    return { name: "Wanjiku" };
  });
  return { asked, intent, intentAction, formAction };
}

function post(entries: [string, string][]) {
  const body = new URLSearchParams(entries);
  return { request: new Request("http://local/page", { method: "POST", body }), context: {} };
}

const Rename = z.object({ id: postedText, name: z.string({ error: "Say a name." }) });
const Remove = z.object({ id: postedText });

/** What a `data()` answer holds and the status it is sent with. */
function answered(value: unknown) {
  const { data, init } = value as { data: unknown; init: ResponseInit | null };
  return { data, status: init?.status };
}

describe("the intent helper", () => {
  test("runs the posted intent's handler with its schema's parsed value and the signed-in user", async () => {
    const { intent, intentAction } = guarded(["contacts:manage"]);
    const answer = await intentAction(
      post([
        ["intent", "rename"],
        ["id", "c1"],
        ["name", "Amina"],
      ]),
      {
        permission: "contacts:manage",
        intents: {
          rename: intent(Rename, ({ value, user }) => {
            expectTypeOf(value).toEqualTypeOf<{ id: string; name: string }>();
            return { renamed: `${value.id}:${value.name}:${user.name}` };
          }),
          remove: intent(Remove, ({ value }) => ({ removed: value.id })),
        },
        unknown: () => "unknown" as const,
      },
    );
    expect(answer).toEqual({ renamed: "c1:Amina:Wanjiku" });
    expectTypeOf(answer).toExtend<{ renamed: string } | { removed: string } | "unknown" | object>();
  });

  test("answers a post that does not fit with Conform's reply, status 400 and the intent, leaving out hidden fields", async () => {
    const { intent, intentAction } = guarded(["contacts:manage"]);
    const handled: string[] = [];
    const answer = await intentAction(
      post([
        ["intent", "rename"],
        ["id", "c1"],
        ["secret", "s3cr3t"],
      ]),
      {
        permission: "contacts:manage",
        intents: { rename: intent(Rename, ({ value }) => handled.push(value.id), { reply: { hideFields: ["secret"] } }) },
        unknown: () => null,
      },
    );
    expect(handled).toEqual([]);
    const { data, status } = answered(answer);
    expect(status).toBe(400);
    expect(data).toMatchObject({ intent: "rename", toast: null, result: { status: "error", error: { name: ["Say a name."] } } });
    expect((data as { result: { initialValue: Record<string, unknown> } }).result.initialValue).toMatchObject({ id: "c1" });
    expect((data as { result: { initialValue: Record<string, unknown> } }).result.initialValue).not.toHaveProperty("secret");
  });

  test("gives a post that does not fit to the intent's own answer when it has one", async () => {
    const { intent, intentAction } = guarded(["contacts:manage"]);
    const answer = await intentAction(post([["intent", "rename"]]), {
      permission: "contacts:manage",
      intents: { rename: intent(Rename, () => "saved", { invalid: (submission, posted) => `${posted}:${submission.status}` }) },
      unknown: () => null,
    });
    expect(answer).toBe("rename:error");
  });

  test("checks the permission all intents share before reading the form, and an intent's own before running it", async () => {
    const viewer = guarded(["contacts:view"]);
    const config = {
      permission: "contacts:view",
      intents: {
        rename: viewer.intent(Rename, () => "renamed", { permission: ["contacts:view", "contacts:manage"] }),
        remove: viewer.intent(Remove, () => "removed"),
      },
      unknown: () => "unknown",
    } as const;
    await expect(viewer.intentAction(post([["intent", "remove"]]), config)).resolves.toBe("removed");
    await expect(
      viewer.intentAction(
        post([
          ["intent", "rename"],
          ["name", "x"],
        ]),
        config,
      ),
    ).rejects.toMatchObject({ status: 302 });
    expect(viewer.asked).toEqual([["contacts:view"], ["contacts:view"], ["contacts:view", "contacts:manage"]]);

    // A role without the shared permission is refused whatever it posted, even a body that is not a form.
    const agent = guarded([]);
    const broken = {
      request: new Request("http://local/page", {
        method: "POST",
        body: "x",
        headers: { "content-type": "multipart/form-data; boundary=b" },
      }),
      context: {},
    };
    await expect(
      agent.intentAction(broken, { ...config, intents: { remove: agent.intent(Remove, () => "removed") } }),
    ).rejects.toMatchObject({ status: 302 });
  });

  test("an intent the page does not have (missing, repeated or unknown) goes to the page's unknown answer", async () => {
    const { intent, intentAction } = guarded(["contacts:manage"]);
    const config = {
      permission: "contacts:manage",
      intents: { remove: intent(Remove, () => "removed") },
      unknown: (posted: string) => `unknown:${posted}`,
    } as const;
    expect(await intentAction(post([["intent", "drop"]]), config)).toBe("unknown:drop");
    expect(await intentAction(post([]), config)).toBe("unknown:");
    expect(
      await intentAction(
        post([
          ["intent", "remove"],
          ["intent", "remove"],
        ]),
        config,
      ),
    ).toBe("unknown:");
    expect(await intentAction(post([["intent", "toString"]]), config)).toBe("unknown:toString");
  });

  test("an intent of its own as the unknown answer: a post no button names runs it, its failure replied as the others'", async () => {
    const { intent, intentAction } = guarded(["contacts:manage"]);
    const Any = z.object({ intent: z.optional(z.string()) });
    const config = {
      permission: "contacts:manage",
      intents: { remove: intent(Remove, () => "removed") },
      unknown: intent(Any, ({ submission, intent: posted }) => ({ said: `unknown:${posted}`, fields: submission.reply().initialValue })),
    } as const;
    expect(
      await intentAction(
        post([
          ["intent", "drop"],
          ["id", "c1"],
        ]),
        config,
      ),
    ).toEqual({ said: "unknown:drop", fields: { intent: "drop", id: "c1" } });
    expect(await intentAction(post([["intent", "remove"]]), config)).toBe("removed");
  });

  test("prepare may be asynchronous, and a refusal it throws at a field is answered as a post that does not fit, with only that error", async () => {
    const { intent, intentAction } = guarded(["contacts:manage"]);
    const Phones = z.object({ phones: z.string({ error: "Give a number." }), name: z.string({ error: "Say a name." }) });
    const joinList = async (form: FormData) => {
      const list = form.get("list");
      form.delete("list");
      if (list === "too long") throw new Refusal({ domain: "campaign", status: 413, message: "The list is too long.", field: "audience" });
      if (typeof list === "string") form.set("phones", `${await Promise.resolve(form.get("phones") ?? "")},${list}`);
      return form;
    };
    const config = {
      permission: "contacts:manage",
      intents: {
        review: intent(Phones, ({ value }) => value, { prepare: joinList }),
        send: intent(Phones, ({ value }) => value, { prepare: joinList, invalid: (submission) => ({ replied: submission.reply() }) }),
      },
      unknown: () => null,
    } as const;
    const joined = post([
      ["intent", "review"],
      ["phones", "0712"],
      ["list", "0722"],
      ["name", "Amina"],
    ]);
    expect(await intentAction(joined, config)).toEqual({ phones: "0712,0722", name: "Amina" });
    // Refused at its field: the other field's own error (no name) is not judged.
    const { data, status } = answered(
      await intentAction(
        post([
          ["intent", "review"],
          ["phones", "0712"],
          ["list", "too long"],
        ]),
        config,
      ),
    );
    expect(status).toBe(400);
    expect(data).toMatchObject({ intent: "review", result: { status: "error", error: { audience: ["The list is too long."] } } });
    expect((data as { result: { error: object; initialValue: object } }).result.error).toEqual({ audience: ["The list is too long."] });
    expect((data as { result: { initialValue: object } }).result.initialValue).toEqual({ intent: "review", phones: "0712" });
    // The intent's own failure answer gets that submission.
    expect(
      await intentAction(
        post([
          ["intent", "send"],
          ["list", "too long"],
        ]),
        config,
      ),
    ).toMatchObject({ replied: { error: { audience: ["The list is too long."] } } });
    // A refusal at no field is the page's refused answer (or thrown on), as a handler's.
    const broken = new Refusal({ domain: "campaign", status: 400, message: "Unreadable." });
    await expect(
      intentAction(post([["intent", "review"]]), {
        ...config,
        intents: {
          review: intent(Phones, ({ value }) => value, {
            prepare: () => {
              throw broken;
            },
          }),
        },
      }),
    ).rejects.toBe(broken);
  });

  test("forbidden: a page answers a refused role itself, the guard asked for the page's permission only", async () => {
    const asked: (readonly Permission[])[] = [];
    const viewer = { name: "Otieno", holds: ["inbox:view"] as Permission[] };
    const { intent, intentAction } = intentActions(
      async (_args, needed) => {
        asked.push(needed);
        return viewer;
      },
      (user, needed) => needed.every((permission) => user.holds.includes(permission)),
    );
    let read = false;
    const config = {
      permission: "inbox:view",
      intents: {
        send: intent(Remove, () => "sent", { permission: "inbox:reply" }),
        assign: intent(Remove, () => "assigned", { permission: ["inbox:reply", "inbox:assign"] }),
      },
      unknown: () => "unknown",
      forbidden: (user: { name: string }) => `forbidden:${user.name}`,
      read: async () => {
        read = true;
        return undefined;
      },
    } as const;
    // The permission all intents share (inbox:reply) missing: the page's answer, before the form is read.
    expect(await intentAction(post([["intent", "send"]]), config)).toBe("forbidden:Otieno");
    expect(read).toBe(false);
    expect(asked).toEqual([["inbox:view"]]);
    // The shared one held, the posted intent's own missing: the page's answer, after the form is read.
    viewer.holds = ["inbox:view", "inbox:reply"];
    expect(await intentAction(post([["intent", "assign"]]), config)).toBe("forbidden:Otieno");
    expect(read).toBe(true);
    expect(await intentAction(post([["intent", "send"]]), config)).toBe("sent");
    expect(asked.every((needed) => needed.length === 1 && needed[0] === "inbox:view")).toBe(true);
  });

  test("read: a page reads its post itself (or leaves it to the helper), and a refusal it throws is the page's refused answer", async () => {
    const { intent, intentAction } = guarded(["contacts:manage"]);
    const own = new FormData();
    own.set("intent", "remove");
    own.set("id", "streamed");
    const refusal = new Refusal({ domain: "inbox", status: 413, message: "Too big.", field: "attachment" });
    const config = {
      permission: "contacts:manage",
      intents: { remove: intent(Remove, ({ value }) => `removed:${value.id}`) },
      unknown: () => "unknown",
      refused: (said: Refusal, posted: string) => `refused:${posted}:${said.message}`,
    } as const;
    const byPage = await intentAction(post([["intent", "drop"]]), { ...config, read: async () => own });
    expect(byPage).toBe("removed:streamed");
    const asUsual = await intentAction(
      post([
        ["intent", "remove"],
        ["id", "c1"],
      ]),
      { ...config, read: async () => undefined },
    );
    expect(asUsual).toBe("removed:c1");
    const refused = await intentAction(post([["intent", "remove"]]), {
      ...config,
      read: async () => {
        throw refusal;
      },
    });
    expect(refused).toBe("refused::Too big.");
  });

  test("a refusal a handler throws is the page's refused answer; anything else is thrown on", async () => {
    const { intent, intentAction } = guarded(["contacts:manage"]);
    const refusal = new Refusal({ domain: "contact", status: 409, message: "Already merged." });
    const answer = await intentAction(post([["intent", "remove"]]), {
      permission: "contacts:manage",
      intents: {
        remove: intent(Remove, () => {
          throw refusal;
        }),
      },
      refused: (said, posted) => `${posted}:${said.message}`,
      unknown: () => null,
    });
    expect(answer).toBe("remove:Already merged.");
    const bug = new Error("a bug");
    await expect(
      intentAction(post([["intent", "remove"]]), {
        permission: "contacts:manage",
        intents: {
          remove: intent(Remove, () => {
            throw bug;
          }),
        },
        refused: () => "refused",
        unknown: () => null,
      }),
    ).rejects.toBe(bug);
  });

  test("a page with one form and no intent field: its permission, its schema, Conform's reply without an intent", async () => {
    const { formAction, asked } = guarded(["organization:manage"]);
    const config = {
      permission: "organization:manage",
      schema: Rename,
      handle: ({ value }: { value: { name: string } }) => value.name,
    } as const;
    expect(await formAction(post([["name", "Jumbe Ltd"]]), config)).toBe("Jumbe Ltd");
    const { data, status } = answered(await formAction(post([]), config));
    expect(status).toBe(400);
    expect(data).toMatchObject({ toast: null, result: { status: "error" } });
    expect(data).not.toHaveProperty("intent");
    expect(asked).toEqual([["organization:manage"], ["organization:manage"]]);
  });

  test("'signed-in' asks the guard for no permission", async () => {
    const { intent, intentAction, asked } = guarded([]);
    await intentAction(post([["intent", "remove"]]), {
      permission: "signed-in",
      intents: { remove: intent(Remove, () => "removed") },
      unknown: () => null,
    });
    expect(asked).toEqual([[]]);
  });
});

describe("the intent helper's types", () => {
  test("an action answers the union of its handlers' answers, its failure reply and its unknown answer", async () => {
    const { intent, intentAction } = guarded(["contacts:manage"]);
    const answer = await intentAction(post([["intent", "remove"]]), {
      permission: "contacts:manage",
      intents: {
        rename: intent(Rename, ({ value }) => ({ renamed: value.name })),
        remove: intent(Remove, ({ value }) => ({ removed: value.id })),
      },
      unknown: () => ({ unknown: true as const }),
    });
    type Answer = typeof answer;
    expectTypeOf<{ renamed: string }>().toExtend<Answer>();
    expectTypeOf<{ removed: string }>().toExtend<Answer>();
    expectTypeOf<{ unknown: true }>().toExtend<Answer>();
    expectTypeOf<Answer>().not.toBeNever();
    expect(answer).toEqual({ removed: "" });
  });
});
