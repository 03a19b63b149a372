import type { z } from "zod";
import { isRefusal } from "../../infrastructure/refusal";
import { readAssistantSettings, saveAssistantSettings, type AssistantSettingsView } from "../../domains/automations/assistant/settings";
import {
  addArticle,
  deleteArticle,
  getArticle,
  listArticles,
  updateArticle,
  type ArticleView,
} from "../../domains/automations/assistant/knowledge";
import { monthUsage } from "../../domains/automations/assistant/usage";
import type { RuleActor } from "../../domains/automations/rules";
import { ApiProblem } from "./problem";
import type {
  AssistantSettings,
  AssistantSettingsUpdate,
  KnowledgeArticle,
  KnowledgeArticleCreate,
  KnowledgeArticleUpdate,
} from "./assistant-schemas";

/**
 * The assistant and its knowledge base in /api/v1 (issue 44), through the same domain functions and
 * checks as the pages. The key is write-only; the domain's refusals become `{ code, message, field }`.
 */

export const ARTICLE_NOT_FOUND = "No knowledge article with this id in your organisation: unknown, malformed, deleted or another's.";

const actorOf = (organizationId: string): RuleActor => ({ organizationId, userId: null });

/** The domain's refusals as the API's problems. */
async function answer<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!isRefusal(error, "automation")) throw error;
    if (error.status === 404) throw new ApiProblem(404, "not_found", ARTICLE_NOT_FOUND);
    if (error.status === 409) throw new ApiProblem(409, "knowledge_limit", error.message);
    const field = error.field && error.field !== "file" ? error.field : undefined;
    throw new ApiProblem(422, "invalid_automation", field ? `${field}: ${error.message}` : error.message, field);
  }
}

async function apiSettings(organizationId: string, view: AssistantSettingsView): Promise<z.input<typeof AssistantSettings>> {
  const usage = await monthUsage(organizationId);
  return {
    enabled: view.enabled,
    phoneNumberIds: view.phoneNumberIds,
    instructions: view.instructions,
    baseUrl: view.baseUrl,
    model: view.model,
    apiKeySaved: view.keySaved,
    apiKeyLast4: view.keyLast4,
    handoverText: view.handoverText,
    maxTurns: view.maxTurns,
    monthlyCapCents: view.monthlyCapCents,
    inputPriceCents: view.inputPriceCents,
    outputPriceCents: view.outputPriceCents,
    usage: {
      month: usage.month,
      replies: usage.replies,
      handovers: usage.handovers,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      costCents: usage.costCents,
    },
  };
}

export async function getApiAssistant(organizationId: string) {
  return apiSettings(organizationId, await readAssistantSettings(organizationId));
}

/** PATCH: the settings as stored with the fields given over them, checked whole; nothing changes on a refusal. */
export async function updateApiAssistant(organizationId: string, body: z.output<typeof AssistantSettingsUpdate>) {
  const current = await readAssistantSettings(organizationId);
  const saved = await answer(
    saveAssistantSettings(actorOf(organizationId), {
      enabled: body.enabled ?? current.enabled,
      phoneNumberIds: body.phoneNumberIds ?? current.phoneNumberIds,
      instructions: body.instructions ?? current.instructions,
      baseUrl: body.baseUrl ?? current.baseUrl,
      model: body.model ?? current.model,
      apiKey: body.apiKey ?? "",
      clearKey: body.apiKey === null,
      handoverText: body.handoverText ?? current.handoverText,
      maxTurns: body.maxTurns ?? current.maxTurns,
      monthlyCapCents: body.monthlyCapCents ?? current.monthlyCapCents,
      inputPriceCents: body.inputPriceCents ?? current.inputPriceCents,
      outputPriceCents: body.outputPriceCents ?? current.outputPriceCents,
    }),
  );
  return apiSettings(organizationId, saved);
}

const apiArticle = (article: ArticleView): z.input<typeof KnowledgeArticle> => ({ ...article });

export async function listApiKnowledge(organizationId: string, q: string | undefined) {
  return { data: (await listArticles(organizationId, q ?? "")).map(apiArticle) };
}

export async function getApiKnowledge(organizationId: string, id: string) {
  return apiArticle(await answer(getArticle(organizationId, id)));
}

export async function createApiKnowledge(organizationId: string, body: z.output<typeof KnowledgeArticleCreate>) {
  return apiArticle(await answer(addArticle(actorOf(organizationId), body)));
}

export async function updateApiKnowledge(organizationId: string, id: string, body: z.output<typeof KnowledgeArticleUpdate>) {
  const current = await answer(getArticle(organizationId, id));
  return apiArticle(
    await answer(updateArticle(actorOf(organizationId), id, { title: body.title ?? current.title, body: body.body ?? current.body })),
  );
}

export async function deleteApiKnowledge(organizationId: string, id: string) {
  await answer(deleteArticle(actorOf(organizationId), id));
  return undefined;
}
