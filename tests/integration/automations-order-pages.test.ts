import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLlm, type LlmHarness } from "@jumbe/sandbox/llm/test-support";
import { saveAutomationSettings, readAutomationSettings } from "~/.server/domains/automations/settings";
import { saveAssistantSettings } from "~/.server/domains/automations/assistant/settings";
import { addArticle } from "~/.server/domains/automations/assistant/knowledge";
import { createRule } from "~/.server/domains/automations/rules";
import { createFlow, getFlow } from "~/.server/domains/automations/flows/store";
import { handoverDetailWords } from "~/lib/schemas/assistant";
import * as builder from "~/routes/app/automations/flow";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";
import { formRequest, getRequest, run } from "../support/http";

// Issue 74's automations pages, as a browser without JavaScript uses them: the Automations page says
// what answers first and which steps are on; "Try it" says in words why it would hand over and greets
// a greeting back; the assistant page says when the sandbox model answers; a flow's branch leads to a
// step that does not exist yet.

let llm: LlmHarness;
beforeAll(async () => {
  llm = await startLlm();
});
afterAll(async () => {
  await llm.close();
});

async function organisation(name: string) {
  const owner = await createVerifiedUser({ businessName: name });
  const organizationId = owner.organization.id;
  const digits = String(randomInt(100_000_000, 999_999_999));
  const { phone } = await connectedNumber(organizationId, {
    wabaId: `w${digits}`,
    phoneNumberId: `p${digits}`,
    display: `+254 7${digits}`,
  });
  return {
    organizationId,
    actor: { organizationId, userId: owner.user.id },
    cookie: await signedInCookie(owner.email, owner.password),
    phoneNumberId: phone.phoneNumberId,
  };
}
type Organisation = Awaited<ReturnType<typeof organisation>>;

const text = (html: string) =>
  html
    .replace(/<!-- -->/g, "")
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
const page = async (path: string, cookie: string, language?: "sw" | "fr") => {
  const response = await appFetch(
    getRequest(path, { cookie: language ? `${cookie}; lng=${language}` : cookie, headers: { accept: "text/html" } }),
  );
  return { status: response.status, text: text(await response.text()) };
};
const posted = async (path: string, cookie: string, fields: Record<string, string>) => {
  const response = await appFetch(formRequest(path, fields, { cookie, headers: { accept: "text/html" } }));
  return { status: response.status, text: text(await response.text()) };
};

async function assistantOn(t: Organisation, overrides: { model?: string } = {}) {
  await saveAssistantSettings(t.actor, {
    enabled: true,
    phoneNumberIds: [t.phoneNumberId],
    instructions: "Jibu kwa ufupi.",
    baseUrl: llm.baseUrl,
    model: overrides.model ?? llm.model,
    apiKey: llm.apiKey,
    handoverText: "Mtu wa timu atakujibu hivi karibuni.",
    maxTurns: 6,
    monthlyCapCents: 0,
    inputPriceCents: 2_000,
    outputPriceCents: 8_000,
  });
}

/** The answering order's steps as the page lists them: each line's words and its state. */
function orderOf(html: string) {
  const list = /<ol[^>]*>([\s\S]*?)<\/ol>/.exec(html.slice(html.indexOf('id="answering-order"')))![1]!;
  return [...list.matchAll(/<li[^>]*data-step="([a-z]+)"[^>]*>([\s\S]*?)<\/li>/g)].map(([, step, body]) => {
    const [words, state] = body!.split(/<span class="badge[^"]*">/).map((part) => part.replace(/<[^>]+>/g, "").trim());
    return { step, words, state };
  });
}

describe("the Automations page says what answers first", () => {
  it("lists the order with each step on or off, in English, Swahili and French", async () => {
    const t = await organisation("Order Page Sacco");
    const off = orderOf((await page("/automations", t.cookie)).text);
    expect(off.map((s) => [s.step, s.state])).toEqual([
      ["consent", "Always"],
      ["rules", "Off"],
      ["welcome", "Off"],
      ["away", "Off"],
      ["assistant", "Off"],
      ["person", "Always"],
    ]);
    expect(off[2]!.words).toContain("after 14 days");
    expect(off[4]!.words).toContain("A greeting is not a question");

    await createRule(t.actor, { name: "Bei", matchType: "contains", keywords: ["bei"], reply: "Bei zetu ziko kwenye tovuti." });
    await saveAutomationSettings(
      t.actor,
      { ...(await readAutomationSettings(t.organizationId)), welcomeEnabled: true, welcomeText: "Karibu!" },
      "Africa/Nairobi",
    );
    await assistantOn(t);
    const on = orderOf((await page("/automations", t.cookie)).text);
    expect(on.map((s) => s.state)).toEqual(["Always", "On", "On", "Off", "On", "Always"]);

    const swahili = orderOf((await page("/automations", t.cookie, "sw")).text);
    expect(swahili.map((s) => s.state)).toEqual(["Daima", "Imewashwa", "Imewashwa", "Imezimwa", "Imewashwa", "Daima"]);
    expect(swahili[4]!.words).toContain("Salamu si swali");
    const french = orderOf((await page("/automations", t.cookie, "fr")).text);
    expect(french[0]!.words).toContain("STOP");
    expect(french[5]!.words).toContain("Une personne");
  });
});

describe("the assistant page", () => {
  it("says why Try it would hand over in words, never a raw code, and greets a greeting back", async () => {
    const t = await organisation("Try Words Cafe");
    await assistantOn(t);
    await addArticle(t.actor, { title: "Delivery", body: "Delivery costs KES 200 inside Nairobi." });
    // Retrieval finds the article by a typo's likeness, the model finds no answer in it: the handover tool's "no_answer".
    const handed = await posted("/automations/assistant", t.cookie, { intent: "try", sample: "delivry?" });
    expect(handed.status).toBe(200);
    expect(handed.text).toContain("It would hand the conversation to a person:");
    expect(handed.text).not.toContain("no_answer");
    expect(handed.text).toContain("the model found no answer in the passages");

    const greeted = await posted("/automations/assistant", t.cookie, { intent: "try", sample: "Habari" });
    expect(greeted.text).toContain("Habari! Asante kwa kuwasiliana na Try Words Cafe. Tukusaidie na nini leo?");
    expect(greeted.text).not.toContain("It would hand the conversation to a person:");
  });

  it("has words for every outcome code, keeping the HTTP status and the endpoint's own words", () => {
    for (const code of ["no_answer", "customer_asked", "other", "rate_limited", "empty", "endpoint refused"])
      expect(handoverDetailWords(code)).toMatch(/^the model('s)? [a-z' ]+$/);
    for (const code of ["quota", "auth", "server", "timeout", "network", "filtered", "malformed", "refused"])
      expect(handoverDetailWords(`${code} (HTTP 500)`)).toMatch(/^the [a-zA-Z' ]+ \(HTTP 500\)$/);
    expect(handoverDetailWords("server (HTTP 502): upstream down")).toBe("the model's server failed (HTTP 502): upstream down");
    expect(handoverDetailWords("tool lookup_order")).toBe("the model asked for a tool Jumbe does not have (lookup_order)");
    expect(handoverDetailWords("constructor")).toBe("the model gave the reason “constructor”");
  });

  it("says when the sandbox model answers, in English, Swahili and French, and not for another model", async () => {
    const t = await organisation("Sandbox Hint Hardware");
    expect((await page("/automations/assistant", t.cookie)).text).not.toContain("sandbox model");
    await assistantOn(t);
    expect((await page("/automations/assistant", t.cookie)).text).toContain(
      "Answers come from the sandbox model, not OpenAI: for testing only.",
    );
    expect((await page("/automations/assistant", t.cookie, "sw")).text).toContain("Majibu yanatoka kwa modeli ya majaribio (sandbox)");
    expect((await page("/automations/assistant", t.cookie, "fr")).text).toContain("Les réponses viennent du modèle de test (sandbox)");
    await assistantOn(t, { model: "gpt-4o-mini" });
    expect((await page("/automations/assistant", t.cookie)).text).not.toContain("sandbox model");
  });
});

describe("a flow's branch leads to a step that does not exist yet", () => {
  it("adds the new step (an end until filled in), opens its form as the kind chosen, and keeps what the flow did", async () => {
    const t = await organisation("New Step Bakery");
    const flow = await createFlow(t.actor, {
      name: "Oda",
      steps: [{ id: "ask", type: "question", text: "Unataka mkate?", input: "buttons", choices: ["Ndiyo", "Hapana"], variable: "jibu" }],
    });
    const here = `/automations/flows/${flow.id}`;
    // The branch's target select offers a new step of each kind.
    const form = await page(`${here}?add=branch`, t.cookie);
    expect(form.text).toContain('value="new:message"');
    expect(form.text).toContain("A new step: Send a message");

    const saved = await run(
      builder.action,
      formRequest(
        here,
        {
          intent: "save-step",
          type: "branch",
          stepId: "",
          source: "answer",
          key: "",
          operator: "equals",
          value: "Ndiyo",
          then: "new:message",
          else: "end",
        },
        { cookie: t.cookie },
      ),
      { params: { id: flow.id } },
    );
    expect(saved.status).toBe(302);
    const stored = await getFlow(t.organizationId, flow.id);
    // The question went on to the branch; the branch is last no more, and the new step ends the flow until filled in.
    expect(stored.steps.map((s) => s.type)).toEqual(["question", "branch", "end"]);
    const branch = stored.steps[1]!;
    const added = stored.steps[2]!;
    expect(branch).toMatchObject({ type: "branch", then: added.id, else: "end" });
    expect(saved.location).toBe(`${here}?step=${added.id}&kind=message#step-form`);
    expect(saved.setCookies.join(";")).toContain("toast");

    // Its form, as a message, says it is new; saving fills it in.
    const next = await page(`${here}?step=${added.id}&kind=message`, t.cookie);
    expect(next.text).toContain("Step 3 is new: until you save it, it ends the flow.");
    expect(next.text).toContain('name="text"');
    const filled = await run(
      builder.action,
      formRequest(
        here,
        {
          intent: "save-step",
          type: "message",
          stepId: added.id,
          text: "Asante! Mkate utafika leo.",
          buttons: "",
          rows: "",
          listButton: "",
          mediaUrl: "",
          mediaKind: "image",
        },
        { cookie: t.cookie },
      ),
      { params: { id: flow.id } },
    );
    expect(filled.status).toBe(302);
    expect((await getFlow(t.organizationId, flow.id)).steps[2]).toMatchObject({
      id: added.id,
      type: "message",
      text: "Asante! Mkate utafika leo.",
    });
  });

  it("puts an end before the new step when the last step went on to the next, and refuses an unknown kind at its field", async () => {
    const t = await organisation("Guard Step Dairy");
    const flow = await createFlow(t.actor, {
      name: "Maziwa",
      steps: [
        { id: "ask", type: "question", text: "Lita ngapi?", input: "text", variable: "lita", maxTries: 2, giveUpTo: "end" },
        { id: "thanks", type: "message", text: "Asante." },
      ],
    });
    const here = `/automations/flows/${flow.id}`;
    const question = {
      intent: "save-step",
      type: "question",
      stepId: "ask",
      text: "Lita ngapi?",
      input: "text",
      choices: "",
      listButton: "",
      validate: "number",
      variable: "lita",
      retryText: "Andika namba.",
      maxTries: "2",
    };
    const refused = await run(builder.action, formRequest(here, { ...question, giveUpTo: "new:nothing" }, { cookie: t.cookie }), {
      params: { id: flow.id },
    });
    expect(refused.status).toBe(400);
    expect(refused.data).toMatchObject({ stepForm: { errors: { giveUpTo: [expect.any(String)] } } });
    expect((await getFlow(t.organizationId, flow.id)).steps).toHaveLength(2);

    const saved = await run(builder.action, formRequest(here, { ...question, giveUpTo: "new:handover" }, { cookie: t.cookie }), {
      params: { id: flow.id },
    });
    expect(saved.status).toBe(302);
    const steps = (await getFlow(t.organizationId, flow.id)).steps;
    // "Asante." still ends the flow: an end after it, then the new step.
    expect(steps.map((s) => s.type)).toEqual(["question", "message", "end", "end"]);
    expect(steps[0]).toMatchObject({ giveUpTo: steps[3]!.id });
    expect(saved.location).toBe(`${here}?step=${steps[3]!.id}&kind=handover#step-form`);
  });
});
