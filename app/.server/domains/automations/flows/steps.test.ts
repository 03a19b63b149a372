import { describe, expect, it } from "vitest";
import { isRefusal } from "../../../infrastructure/refusal";
import { FLOW_STEPS_MAX } from "~/lib/schemas/flows";
import { checkStep, checkSteps } from "./steps";
import { acceptedAnswer, conditionHolds, substitute } from "./values";
import { answerQuestion, runFrom, type HttpCall } from "./engine";
import type { QuestionStep } from "./steps";

// A flow's steps (issue 44): their shapes checked as a zod union, the whole list's links, answers
// checked as the question asks, variables in texts, and the engine running them.

const refusedAt = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (isRefusal(error)) return { status: error.status, field: error.field };
    throw error;
  }
  return null;
};

const contact = { name: "Wanjiku Kamau", phone: "+254712345678", language: "sw", attributes: { town: "Nakuru" }, tags: ["vip"] };
const noHttp: HttpCall = () => Promise.reject(new Error("no HTTP in this test"));
const now = new Date("2026-11-27T10:00:00Z");

describe("a flow's steps", () => {
  it("accepts each kind of step with its defaults, and refuses a wrong field by its name", () => {
    expect(checkStep({ id: "a1", type: "message", text: "Karibu!" }, false)).toMatchObject({ buttons: [], rows: [], mediaUrl: "" });
    expect(checkStep({ id: "q1", type: "question", text: "Jina?", input: "text", variable: "name" }, false)).toMatchObject({
      validate: "any",
      maxTries: 3,
      giveUpTo: "end",
    });
    expect(refusedAt(() => checkStep({ id: "a1", type: "message", text: "" }, false))).toEqual({ status: 400, field: "text" });
    expect(refusedAt(() => checkStep({ id: "a1", type: "message", text: "Hi", buttons: ["1", "2", "3", "4"] }, false))).toEqual({
      status: 400,
      field: "buttons",
    });
    expect(
      refusedAt(() => checkStep({ id: "a1", type: "message", text: "Hi", buttons: ["A"], rows: ["B"], listButton: "Open" }, false)),
    ).toEqual({
      status: 400,
      field: "buttons",
    });
    expect(refusedAt(() => checkStep({ id: "a1", type: "message", text: "Hi", mediaUrl: "http://x.co.ke/a.png" }, false))).toEqual({
      status: 400,
      field: "mediaUrl",
    });
    expect(refusedAt(() => checkStep({ id: "q", type: "question", text: "?", input: "text", variable: "Bad Name" }, false))).toEqual({
      status: 400,
      field: "variable",
    });
    expect(
      refusedAt(() => checkStep({ id: "q", type: "question", text: "?", input: "buttons", choices: [], variable: "x" }, false)),
    ).toEqual({
      status: 400,
      field: "choices",
    });
    expect(refusedAt(() => checkStep({ id: "w", type: "wait", minutes: 0 }, false))).toEqual({ status: 400, field: "minutes" });
    expect(refusedAt(() => checkStep({ id: "z", type: "teleport" }, false))).toEqual({ status: 400, field: "type" });
  });

  it("takes an http address outside production only; production wants https", () => {
    const step = { id: "h", type: "http", method: "GET", url: "http://shop.example.co.ke:8080/orders" };
    expect(checkStep(step, false)).toMatchObject({ saveAs: "http" });
    expect(refusedAt(() => checkStep(step, true))).toEqual({ status: 400, field: "url" });
    expect(checkStep({ ...step, url: "https://shop.example.co.ke/orders/{{order}}" }, true)).toMatchObject({ method: "GET" });
  });

  it("checks the whole list: unique ids, links to steps that exist (not itself), at most the limit", () => {
    const branch = { id: "b", type: "branch", source: "answer", operator: "equals", value: "1", then: "m", else: "next" };
    expect(checkSteps([branch, { id: "m", type: "message", text: "Hi" }], false)).toHaveLength(2);
    expect(refusedAt(() => checkSteps([branch], false))).toEqual({ status: 400, field: "steps[0].then" });
    expect(refusedAt(() => checkSteps([{ ...branch, then: "b" }], false))).toEqual({ status: 400, field: "steps[0].then" });
    expect(
      refusedAt(() =>
        checkSteps(
          [
            { id: "m", type: "end" },
            { id: "m", type: "end" },
          ],
          false,
        ),
      ),
    ).toEqual({ status: 400, field: "steps" });
    const many = Array.from({ length: FLOW_STEPS_MAX + 1 }, (_, i) => ({ id: `s${i}`, type: "end" }));
    expect(refusedAt(() => checkSteps(many, false))).toEqual({ status: 400, field: "steps" });
    // A step without an id is given one.
    expect(checkSteps([{ type: "end" }], false)[0]!.id).toMatch(/^[a-z0-9]{1,16}$/);
  });
});

describe("answers and variables", () => {
  const question = (over: Partial<QuestionStep>): QuestionStep =>
    ({
      id: "q",
      type: "question",
      text: "?",
      input: "text",
      choices: [],
      listButton: "",
      validate: "any",
      variable: "x",
      retryText: "",
      maxTries: 3,
      giveUpTo: "end",
      ...over,
    }) as QuestionStep;

  it("checks an answer as a phone number, a number, an e-mail address, a date or a choice", () => {
    expect(acceptedAnswer(question({ validate: "phone" }), "0712 345 678", null)).toBe("+254712345678");
    expect(acceptedAnswer(question({ validate: "phone" }), "call me", null)).toBeNull();
    expect(acceptedAnswer(question({ validate: "number" }), "1,500", null)).toBe("1500");
    expect(acceptedAnswer(question({ validate: "email" }), "Achieng@Example.co.ke", null)).toBe("achieng@example.co.ke");
    expect(acceptedAnswer(question({ validate: "date" }), "31/12/2026", null)).toBe("2026-12-31");
    expect(acceptedAnswer(question({ validate: "date" }), "31/02/2026", null)).toBeNull();
    const menu = question({ input: "buttons", choices: ["Delivery", "Pick-up"], validate: "choice" });
    expect(acceptedAnswer(menu, "Whatever the title says", "q:1")).toBe("Pick-up");
    expect(acceptedAnswer(menu, "delivery", null)).toBe("Delivery");
    expect(acceptedAnswer(menu, "2", null)).toBe("Pick-up");
    expect(acceptedAnswer(menu, "Kesho", null)).toBeNull();
  });

  it("puts variables, the contact and nested answers into texts; unknown ones are empty", () => {
    const vars = { name: "Brian", http: { order: { status: "shipped" } } };
    expect(substitute("Habari {{name}} ({{contact.name}}, {{contact.town}}): {{http.order.status}}{{missing}}.", vars, contact)).toBe(
      "Habari Brian (Wanjiku Kamau, Nakuru): shipped.",
    );
    expect(substitute("/orders/{{name}}", { name: "a b/c" }, contact, encodeURIComponent)).toBe("/orders/a%20b%2Fc");
  });

  it("holds a branch's conditions regardless of case and accents", () => {
    expect(conditionHolds("equals", "Délivery", "delivery")).toBe(true);
    expect(conditionHolds("contains", "Nataka pick-up kesho", "PICK-UP")).toBe(true);
    expect(conditionHolds("one_of", "Mombasa", "Nairobi, Mombasa")).toBe(true);
    expect(conditionHolds("empty", "", "")).toBe(true);
    expect(conditionHolds("equals", ["vip", "lead"], "lead")).toBe(true);
  });
});

describe("the engine", () => {
  const steps = checkSteps(
    [
      {
        id: "ask",
        type: "question",
        text: "Jina?",
        input: "text",
        variable: "name",
        retryText: "Tafadhali andika jina.",
        maxTries: 2,
        giveUpTo: "bye",
      },
      { id: "tag", type: "set", action: "add_tag", key: "flow-lead" },
      { id: "vip", type: "branch", source: "tag", key: "vip", operator: "equals", then: "hi", else: "next" },
      { id: "plain", type: "message", text: "Karibu {{name}}." },
      { id: "hi", type: "message", text: "Karibu tena, {{name}}!" },
      { id: "wait", type: "wait", minutes: 60 },
      { id: "bye", type: "message", text: "Kwaheri." },
    ],
    false,
  );

  it("runs until a question, then on the answer through a set, a branch and messages until a wait", async () => {
    const first = await runFrom(steps, 0, { stepIndex: 0, vars: {}, retries: 0 }, contact, noHttp, now);
    expect(first).toMatchObject({ status: "active", stepId: "ask", replies: [{ kind: "text", text: "Jina?" }] });
    const answered = await answerQuestion(steps, first.state, "Wanjiku", null, contact, noHttp, now);
    expect(answered.replies).toEqual([{ kind: "text", text: "Karibu tena, Wanjiku!" }]);
    expect(answered).toMatchObject({ status: "active", stepId: "wait", wakeAt: new Date("2026-11-27T11:00:00Z") });
    expect(answered.writes).toEqual([{ type: "add_tag", tag: "flow-lead" }]);
  });

  it("asks again after a wrong answer and gives up to its chosen step after the last try", async () => {
    const dated = checkSteps([{ ...steps[0]!, validate: "date" }, ...steps.slice(1)], false);
    const state = { stepIndex: 0, vars: {}, retries: 0 };
    const retry = await answerQuestion(dated, state, "soon", null, contact, noHttp, now);
    expect(retry.replies).toEqual([
      { kind: "text", text: "Tafadhali andika jina." },
      { kind: "text", text: "Jina?" },
    ]);
    expect(retry.state.retries).toBe(1);
    const gaveUp = await answerQuestion(dated, retry.state, "later", null, contact, noHttp, now);
    expect(gaveUp.replies).toEqual([{ kind: "text", text: "Kwaheri." }]);
    expect(gaveUp.status).toBe("completed");
  });

  it("sends buttons and lists as interactive messages whose ids name the step and the choice", async () => {
    const menu = checkSteps(
      [
        {
          id: "m",
          type: "question",
          text: "Chagua:",
          input: "list",
          choices: ["Nairobi", "Mombasa"],
          listButton: "Maeneo",
          variable: "area",
        },
      ],
      false,
    );
    const turn = await runFrom(menu, 0, { stepIndex: 0, vars: {}, retries: 0 }, contact, noHttp, now);
    expect(turn.replies).toEqual([
      {
        kind: "interactive",
        interactive: {
          type: "list",
          body: "Chagua:",
          button: "Maeneo",
          sections: [
            {
              rows: [
                { id: "m:0", title: "Nairobi" },
                { id: "m:1", title: "Mombasa" },
              ],
            },
          ],
        },
      },
    ]);
  });

  it("stops a loop of branches that never asks anything", async () => {
    const loop = checkSteps(
      [
        { id: "a", type: "branch", source: "answer", operator: "empty", then: "b", else: "b" },
        { id: "b", type: "branch", source: "answer", operator: "empty", then: "a", else: "a" },
      ],
      false,
    );
    const turn = await runFrom(loop, 0, { stepIndex: 0, vars: {}, retries: 0 }, contact, noHttp, now);
    expect(turn).toMatchObject({ status: "stopped", replies: [] });
  });

  it("checks a products step's shape, and gives its message to be read from the catalog when sent, variables filled in", async () => {
    const kikoi = "0b6c4f2e-1d3a-4b5c-8e7f-9a0b1c2d3e4f";
    expect(checkStep({ id: "p", type: "products", kind: "product_list", productIds: [kikoi] }, false)).toMatchObject({
      header: "",
      text: "",
    });
    expect(refusedAt(() => checkStep({ id: "p", type: "products", kind: "carousel", productIds: [kikoi] }, false))).toEqual({
      status: 400,
      field: "kind",
    });
    expect(refusedAt(() => checkStep({ id: "p", type: "products", kind: "product", productIds: ["KIKOI-1"] }, false))).toEqual({
      status: 400,
      field: "productIds",
    });
    expect(
      refusedAt(() => checkStep({ id: "p", type: "products", kind: "product_list", productIds: Array(31).fill(kikoi) }, false)),
    ).toEqual({ status: 400, field: "productIds" });
    const steps = checkSteps(
      [
        {
          id: "p",
          type: "products",
          kind: "product_list",
          productIds: [kikoi],
          header: "Kwa {{contact.town}}",
          text: "Chagua, {{contact.name}}",
        },
        { id: "m", type: "message", text: "Asante." },
      ],
      false,
    );
    const turn = await runFrom(steps, 0, { stepIndex: 0, vars: {}, retries: 0 }, contact, noHttp, now);
    expect(turn).toMatchObject({ status: "completed" });
    expect(turn.replies).toEqual([
      { kind: "products", request: { kind: "product_list", productIds: [kikoi], header: "Kwa Nakuru", body: "Chagua, Wanjiku Kamau" } },
      { kind: "text", text: "Asante." },
    ]);
  });
});
