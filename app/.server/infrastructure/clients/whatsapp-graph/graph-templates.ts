import type { GraphCaller } from "./graph-call";
import { GraphApiError, GraphNetworkError } from "./graph-errors";

/** Message templates: submitted for review, listed, read, edited, deleted (one language at a time). */

export interface GraphTemplateRequest {
  name: string;
  language: string;
  category: string;
  components: Record<string, unknown>[];
}

export interface GraphTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  category: string;
  previousCategory?: string;
  components: Record<string, unknown>[];
  rejectedReason?: string;
  qualityScore?: string;
}

const TEMPLATE_FIELDS = "id,name,language,status,category,previous_category,components,rejected_reason,quality_score";

export function templateCalls(graph: GraphCaller) {
  return {
    /** Submits a template for review: Meta answers its id and PENDING (or a category it chose). */
    async createTemplate(
      wabaId: string,
      token: string,
      template: GraphTemplateRequest,
    ): Promise<{ id: string; status: string; category?: string }> {
      const answer = await graph.call<{ id?: string | number; status?: string; category?: string }>({
        step: "template.create",
        method: "POST",
        path: `${encodeURIComponent(wabaId)}/message_templates`,
        body: { ...template, parameter_format: "positional" },
        token,
        // A lost answer may have created it: a repeat would only meet "already exists". Sync adopts it.
        idempotent: false,
      });
      if (answer.id === undefined) throw new GraphNetworkError("template.create", "Graph template.create answered without an id");
      return { id: String(answer.id), status: String(answer.status ?? "PENDING"), category: answer.category };
    },

    /** Every template of a WABA, following `paging.next` (present only while another page exists). */
    async listTemplates(wabaId: string, token: string): Promise<GraphTemplate[]> {
      const templates: GraphTemplate[] = [];
      let after: string | undefined;
      // Pages of 100; a verified WABA holds at most 6,000 templates, the bound only stops a runaway loop.
      for (let page = 0; page < 100; page++) {
        const answer = await graph.call<{ data?: Record<string, unknown>[]; paging?: { cursors?: { after?: string }; next?: string } }>({
          step: "template.list",
          method: "GET",
          path: `${encodeURIComponent(wabaId)}/message_templates`,
          query: { fields: TEMPLATE_FIELDS, limit: "100", ...(after ? { after } : {}) },
          token,
          idempotent: true,
        });
        templates.push(...(answer.data ?? []).map(toTemplate));
        after = answer.paging?.next ? answer.paging.cursors?.after : undefined;
        if (!after) break;
      }
      return templates;
    },

    async getTemplate(templateId: string, token: string): Promise<GraphTemplate> {
      const answer = await graph.call<Record<string, unknown>>({
        step: "template.get",
        method: "GET",
        path: encodeURIComponent(templateId),
        query: { fields: TEMPLATE_FIELDS },
        token,
        idempotent: true,
      });
      return toTemplate(answer);
    },

    /** Replaces a template's components (rejected, paused or approved ones); it goes back to review. */
    async editTemplate(templateId: string, token: string, change: { components: Record<string, unknown>[]; category?: string }) {
      await graph.call<{ success?: boolean }>({
        step: "template.edit",
        method: "POST",
        path: encodeURIComponent(templateId),
        body: change,
        token,
        idempotent: true,
      });
    },

    /**
     * Deletes one language of a template (by name and id). A template Meta no longer has counts as
     * deleted: Meta answers 404, and the outcome the caller wants is already true.
     */
    async deleteTemplate(wabaId: string, token: string, name: string, templateId: string) {
      try {
        await graph.call<{ success?: boolean }>({
          step: "template.delete",
          method: "DELETE",
          path: `${encodeURIComponent(wabaId)}/message_templates`,
          query: { name, hsm_id: templateId },
          token,
          idempotent: true,
        });
      } catch (error) {
        if (error instanceof GraphApiError && error.status === 404) return;
        throw error;
      }
    },
  };
}

function toTemplate(raw: Record<string, unknown>): GraphTemplate {
  const text = (key: string) => (typeof raw[key] === "string" ? (raw[key] as string) : undefined);
  const quality = raw.quality_score;
  return {
    id: String(raw.id),
    name: text("name") ?? "",
    // Meta's webhooks have shown en-US where the API says en_US.
    language: (text("language") ?? "").replace("-", "_"),
    status: (text("status") ?? "PENDING").toUpperCase(),
    category: (text("category") ?? "UTILITY").toUpperCase(),
    previousCategory: text("previous_category")?.toUpperCase(),
    components: Array.isArray(raw.components) ? (raw.components as Record<string, unknown>[]) : [],
    rejectedReason: text("rejected_reason"),
    qualityScore:
      typeof quality === "string"
        ? quality
        : quality && typeof quality === "object"
          ? String((quality as { score?: unknown }).score ?? "") || undefined
          : undefined,
  };
}
