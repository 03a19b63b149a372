import type { WebhookEvents } from "./events";
import { NAME_HOLD_MS, type SandboxStore, type Template } from "./state";
import {
  checkCategory,
  checkComponents,
  checkLanguage,
  checkName,
  checkParameterFormat,
  SUBCODE,
  type HandleResolver,
  TemplateRuleError,
} from "./template-rules";
import {
  QUALITY_SCORES,
  TEMPLATE_EVENTS,
  TEMPLATE_REASONS,
  TEMPLATE_STATUSES,
  type SandboxTemplate,
  type TemplateAtMetaInput,
  type TemplateDecision,
  type TemplateEvent,
  type TemplateQualityScore,
  type TemplateReason,
  type TemplateStatus,
} from "./types";
import { unixSeconds } from "./util";

/** Which pending templates reviewNow decides: all of them, a WABA's, or one (tests running side by side). */
export interface ReviewFilter {
  wabaId?: string;
  templateId?: string;
}

/** A create request's parameters, as received (the rules check them). */
export interface TemplateRequest {
  name?: string;
  language?: string;
  category?: string;
  parameterFormat?: string;
  components?: unknown;
}

const EDITABLE: readonly TemplateStatus[] = ["APPROVED", "REJECTED", "PAUSED"];

/** The reviewer's rules, applied to the template's name. */
export const REVIEW_RULES = { reject: "reject", recategorise: "recategorise" } as const;

const REVIEWER_REJECTION = {
  reason: `The sandbox's reviewer rejects every template whose name contains "${REVIEW_RULES.reject}".`,
  recommendation: `Submit the template under a name without "${REVIEW_RULES.reject}" to have it approved.`,
};

const isoTime = (ms: number) => new Date(ms).toISOString();

/**
 * Message templates: Meta's create, edit, delete and status rules, and the reviewer that decides
 * each submitted template after the review delay (timers cleared on reset and close, and set
 * again for PENDING templates when the sandbox starts on a saved state).
 */
export class TemplateDesk {
  private timers = new Map<string, ReturnType<typeof setTimeout>>();
  private closed = false;

  constructor(
    private readonly store: SandboxStore,
    private readonly events: WebhookEvents,
    private readonly options: { reviewDelayMs: number; now: () => number },
  ) {
    for (const t of store.templates.values()) if (t.status === "PENDING") this.schedule(t);
  }

  private get now() {
    return this.options.now();
  }

  // ---- reading -------------------------------------------------------------------------------

  get(id: unknown): Template | undefined {
    return typeof id === "string" ? this.store.templates.get(id) : undefined;
  }

  /** Oldest first; of one WABA when given. */
  list(wabaId?: string): Template[] {
    return [...this.store.templates.values()].filter((t) => wabaId === undefined || t.wabaId === wabaId).sort((a, b) => a.seq - b.seq);
  }

  view(t: Template): SandboxTemplate {
    return {
      id: t.id,
      wabaId: t.wabaId,
      name: t.name,
      language: t.language,
      category: t.category,
      previousCategory: t.previousCategory,
      parameterFormat: t.parameterFormat,
      components: structuredClone(t.components),
      status: t.status,
      rejectedReason: t.rejectedReason,
      rejectionInfo: t.rejectionInfo ? { ...t.rejectionInfo } : null,
      qualityScore: t.qualityScore,
      createdAt: isoTime(t.createdAt),
      updatedAt: isoTime(t.updatedAt),
      reviewAt: t.status === "PENDING" ? isoTime(t.submittedAt + this.options.reviewDelayMs) : null,
    };
  }

  // ---- the Graph API's operations (rule failures throw TemplateRuleError) ----------------------

  /** POST /{waba-id}/message_templates: checked, stored PENDING, decided by the reviewer later. */
  submit(wabaId: string, handles: HandleResolver, request: TemplateRequest): Template {
    const name = checkName(request.name);
    const language = checkLanguage(request.language);
    const category = checkCategory(request.category);
    const parameterFormat = checkParameterFormat(request.parameterFormat);
    this.checkNameFree(wabaId, name, language);
    const components = checkComponents(request.components, category, parameterFormat, handles);
    const template = this.add({ wabaId, name, language, category, parameterFormat, components, status: "PENDING" });
    this.schedule(template);
    return template;
  }

  /** POST /{template-id}: new components and/or category; back to PENDING and through review. */
  edit(t: Template, handles: HandleResolver, request: { components?: unknown; category?: string }) {
    if (!EDITABLE.includes(t.status))
      throw new TemplateRuleError(
        "Message template status can't be changed",
        `This template is ${t.status}: only APPROVED, REJECTED or PAUSED templates can be edited.`,
        SUBCODE.statusCannotChange,
      );
    if (request.components === undefined && (request.category === undefined || request.category === ""))
      throw new TemplateRuleError(
        "Nothing to edit",
        "Send components and/or category to edit a template.",
        undefined,
        "(#100) The parameter components is required",
      );
    const category = request.category ? checkCategory(request.category) : t.category;
    if (category !== t.category && t.status === "APPROVED")
      throw new TemplateRuleError("Category can't be changed", "An approved template's category can't be changed.");
    // Stored components carry example URLs, not handles: checked again for the category only.
    const components =
      request.components === undefined
        ? checkComponents(t.components, category, t.parameterFormat)
        : checkComponents(request.components, category, t.parameterFormat, handles);
    Object.assign(t, { category, components, rejectedReason: "NONE", rejectionInfo: null });
    this.moveTo(t, "PENDING");
  }

  /**
   * DELETE /{waba-id}/message_templates: every language of the name, or the one hsm_id. Returns
   * what was deleted (empty: nothing matched). A DISABLED template can't be deleted.
   */
  remove(wabaId: string, name: string, hsmId?: string): Template[] {
    const matches = this.list(wabaId).filter((t) => t.name === name && (hsmId === undefined || t.id === hsmId));
    const disabled = matches.find((t) => t.status === "DISABLED");
    if (disabled)
      throw new TemplateRuleError(
        "Disabled templates can't be deleted",
        `The ${disabled.language} content of "${name}" is DISABLED, and disabled templates can't be deleted.`,
      );
    for (const t of matches) this.deleteOne(t, false);
    return matches;
  }

  // ---- Business Manager and Meta's own decisions (readable Errors) ----------------------------

  createAtMeta(wabaId: string, input: TemplateAtMetaInput): Template {
    if (!this.store.wabas.has(wabaId)) throw new Error(`Unknown WABA ${wabaId}.`);
    if (!input || typeof input !== "object") throw new Error("createTemplateAtMeta needs name, language and category.");
    const status = input.status ?? "APPROVED";
    if (!(TEMPLATE_STATUSES as readonly string[]).includes(status) || status === "DELETED")
      throw new Error(`status must be one of ${TEMPLATE_STATUSES.filter((s) => s !== "DELETED").join(", ")}.`);
    const qualityScore = input.qualityScore ?? "UNKNOWN";
    if (!QUALITY_SCORES.includes(qualityScore)) throw new Error(`qualityScore must be one of ${QUALITY_SCORES.join(", ")}.`);
    return readable(() => {
      const name = checkName(input.name);
      const language = checkLanguage(input.language);
      const category = checkCategory(input.category);
      const parameterFormat = checkParameterFormat(input.parameterFormat);
      this.checkNameFree(wabaId, name, language);
      const components = checkComponents(
        input.components ?? [{ type: "BODY", text: "Hello from the Meta sandbox." }],
        category,
        parameterFormat,
      );
      const template = this.add({ wabaId, name, language, category, parameterFormat, components, status, qualityScore });
      if (status === "PENDING") this.schedule(template);
      return template;
    });
  }

  /**
   * One of the demo business's approved templates (business-demo.ts) under its derived id, as made
   * in Business Manager and approved; nothing when that id is known already.
   */
  seedApproved(wabaId: string, id: string, input: Omit<TemplateAtMetaInput, "status" | "qualityScore">) {
    if (this.store.templates.has(id)) return;
    const template = this.createAtMeta(wabaId, { ...input, status: "APPROVED", qualityScore: "GREEN" });
    this.store.templates.delete(template.id);
    template.id = id;
    this.store.templates.set(id, template);
    this.store.changed();
  }

  setStatus(id: string, event: TemplateEvent, options: { reason?: TemplateReason; silent?: boolean } = {}): Template {
    const t = this.existing(id);
    if (!TEMPLATE_EVENTS.includes(event)) throw new Error(`event must be one of ${TEMPLATE_EVENTS.join(", ")}.`);
    if (options.reason !== undefined && !TEMPLATE_REASONS.includes(options.reason))
      throw new Error(`reason must be one of ${TEMPLATE_REASONS.join(", ")}.`);
    if (event === "DELETED") {
      this.checkDeletable(t);
      this.deleteOne(t, !!options.silent);
      return { ...t, status: "DELETED" };
    }
    const from = t.status;
    const reason = options.reason ?? (event === "REJECTED" ? "INVALID_FORMAT" : "NONE");
    if (event === "REJECTED") {
      t.rejectedReason = reason;
      t.rejectionInfo = {
        reason: `Rejected by hand in the Meta sandbox (${reason}).`,
        recommendation: "Edit the template to submit it again.",
      };
    } else if (event !== "FLAGGED") {
      t.rejectedReason = "NONE";
      t.rejectionInfo = null;
    }
    // FLAGGED warns and changes no status; REINSTATED makes a paused or disabled template usable again.
    this.moveTo(t, event === "FLAGGED" ? t.status : event === "REINSTATED" ? "APPROVED" : event);
    if (!options.silent) this.events.templateStatus(t, event, reason, this.statusExtras(t, event, from));
    return t;
  }

  deleteAtMeta(id: string, options: { silent?: boolean } = {}) {
    const t = this.existing(id);
    this.checkDeletable(t);
    this.deleteOne(t, !!options.silent);
  }

  quality(id: string, score: TemplateQualityScore) {
    const t = this.existing(id);
    if (!QUALITY_SCORES.includes(score)) throw new Error(`The quality score is one of ${QUALITY_SCORES.join(", ")}.`);
    const previous = t.qualityScore;
    t.qualityScore = score;
    t.updatedAt = this.now;
    this.store.changed();
    this.events.templateQuality(t, previous, score);
  }

  // ---- the reviewer --------------------------------------------------------------------------

  /** Decides every PENDING template now, or only a WABA's or one template's (`only`). */
  reviewNow(only: ReviewFilter = {}): TemplateDecision[] {
    return this.list()
      .filter((t) => t.status === "PENDING")
      .filter((t) => (!only.wabaId || t.wabaId === only.wabaId) && (!only.templateId || t.id === only.templateId))
      .map((t) => this.decide(t));
  }

  /**
   * The reviewer's rules on the name: "reject" → REJECTED (INVALID_FORMAT); "recategorise" →
   * APPROVED, then a UTILITY template moves to MARKETING; else APPROVED. Each sends its webhook.
   */
  private decide(t: Template): TemplateDecision {
    const decision = { templateId: t.id, wabaId: t.wabaId, name: t.name, language: t.language };
    if (t.name.includes(REVIEW_RULES.reject)) {
      Object.assign(t, { rejectedReason: "INVALID_FORMAT", rejectionInfo: { ...REVIEWER_REJECTION } });
      this.moveTo(t, "REJECTED");
      this.events.templateStatus(t, "REJECTED", "INVALID_FORMAT", { rejection_info: { ...REVIEWER_REJECTION } });
      return { ...decision, status: "REJECTED", reason: "INVALID_FORMAT", category: t.category };
    }
    Object.assign(t, { rejectedReason: "NONE", rejectionInfo: null });
    this.moveTo(t, "APPROVED");
    this.events.templateStatus(t, "APPROVED", "NONE");
    if (!t.name.includes(REVIEW_RULES.recategorise) || t.category !== "UTILITY")
      return { ...decision, status: "APPROVED", reason: "NONE", category: t.category };
    Object.assign(t, { previousCategory: "UTILITY", category: "MARKETING" });
    this.store.changed();
    this.events.templateCategory(t, "UTILITY", "MARKETING");
    return { ...decision, status: "APPROVED", reason: "NONE", category: "MARKETING", previousCategory: "UTILITY" };
  }

  private schedule(t: Template) {
    if (this.closed) return;
    this.clearTimer(t.id);
    const wait = Math.max(0, t.submittedAt + this.options.reviewDelayMs - this.now);
    const timer = setTimeout(() => {
      this.timers.delete(t.id);
      const current = this.store.templates.get(t.id);
      if (!current || current.status !== "PENDING") return;
      try {
        this.decide(current);
      } catch (error) {
        console.warn(`[meta sandbox] could not decide template ${t.id}:`, error);
      }
    }, wait);
    timer.unref();
    this.timers.set(t.id, timer);
  }

  private clearTimer(id: string) {
    const timer = this.timers.get(id);
    if (timer) clearTimeout(timer);
    this.timers.delete(id);
  }

  /** Pending reviews are dropped (the store forgets the templates too). */
  reset() {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  close() {
    this.reset();
    this.closed = true;
  }

  // ---- helpers -------------------------------------------------------------------------------

  private existing(id: string): Template {
    const t = this.get(id);
    if (!t) throw new Error(`Unknown template ${String(id)}.`);
    return t;
  }

  private add(
    input: Pick<Template, "wabaId" | "name" | "language" | "category" | "parameterFormat" | "components" | "status"> & {
      qualityScore?: TemplateQualityScore;
    },
  ): Template {
    const now = this.now;
    const template: Template = {
      ...this.store.newTemplateKeys(),
      ...input,
      previousCategory: null,
      rejectedReason: "NONE",
      rejectionInfo: null,
      qualityScore: input.qualityScore ?? "UNKNOWN",
      submittedAt: now,
      createdAt: now,
      updatedAt: now,
    };
    this.store.templates.set(template.id, template);
    this.store.changed();
    return template;
  }

  /** Sets the status; into PENDING starts a review, out of it drops the pending one. */
  private moveTo(t: Template, status: TemplateStatus) {
    const now = this.now;
    t.status = status;
    t.updatedAt = now;
    if (status === "PENDING") {
      t.submittedAt = now;
      this.schedule(t);
    } else this.clearTimer(t.id);
    this.store.changed();
  }

  private checkNameFree(wabaId: string, name: string, language: string) {
    if (this.list(wabaId).some((t) => t.name === name && t.language === language))
      throw new TemplateRuleError(
        "Content in this language already exists",
        `The template "${name}" already has ${language} content. Add content in another language or choose another name.`,
        SUBCODE.languageExists,
      );
    const held = this.store.heldNames().find((d) => d.wabaId === wabaId && d.name === name);
    if (held)
      throw new TemplateRuleError(
        "Message template language is being deleted",
        `New content for "${name}" can't be added while its deleted ${held.language} content is being deleted. ` +
          `Try again after ${isoTime(held.deletedAt + NAME_HOLD_MS).slice(0, 10)} or choose another name.`,
        SUBCODE.nameBeingDeleted,
      );
  }

  private checkDeletable(t: Template) {
    if (t.status === "DISABLED") throw new Error(`Template ${t.id} is DISABLED, and disabled templates can't be deleted.`);
  }

  /** Forgets the template (an approved one's name is held 30 days) and sends DELETED unless silent. */
  private deleteOne(t: Template, silent: boolean) {
    this.clearTimer(t.id);
    this.store.templates.delete(t.id);
    if (t.status === "APPROVED") this.store.holdName({ wabaId: t.wabaId, name: t.name, language: t.language, deletedAt: this.now });
    this.store.changed();
    if (!silent) this.events.templateStatus(t, "DELETED", null);
  }

  /** rejection_info, disable_info and other_info, on the events Meta sends them with. */
  private statusExtras(t: Template, event: TemplateEvent, from: TemplateStatus): Record<string, unknown> {
    switch (event) {
      case "REJECTED":
        return { rejection_info: { ...t.rejectionInfo } };
      case "PAUSED":
        return { other_info: { title: "FIRST_PAUSE", description: "Paused for 3 hours because of low quality (Meta sandbox)." } };
      case "DISABLED":
        return {
          disable_info: { disable_date: String(unixSeconds(this.now)) },
          other_info: { title: "DISABLED", description: "Disabled because of low quality (Meta sandbox)." },
        };
      case "REINSTATED":
        return from === "PAUSED" ? { other_info: { title: "UNPAUSE", description: "The pause ended (Meta sandbox)." } } : {};
      default:
        return {};
    }
  }
}

/** Rule failures as plain Errors with Meta's explanation, for the programmatic interface. */
function readable<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof TemplateRuleError) throw new Error(`${error.title}: ${error.userMsg}`);
    throw error;
  }
}
