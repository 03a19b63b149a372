import type { z } from "zod";
import type { CampaignParameters, ParameterSource } from "../../infrastructure/db/schema/campaigns";
import {
  cancelCampaign,
  checkCampaign,
  createCampaign,
  estimateCampaign,
  pauseCampaign,
  resumeCampaign,
  type CampaignInput,
} from "../../domains/campaigns/lifecycle";
import { getCampaign, listCampaigns, type CampaignView } from "../../domains/campaigns/queries";
import { hashRequest } from "../../domains/messaging/queue";
import { campaignFallbackSummary } from "../../domains/sms";
import { oncePerKey } from "./idempotency";
import { ApiProblem, refusalProblem } from "./problem";
import {
  UUID,
  type CampaignCreate,
  type CampaignEstimate,
  type CampaignHeader,
  type CampaignParameter,
  type CampaignsQuery,
} from "./campaign-schemas";

type Estimate = z.output<typeof CampaignEstimate>;

/** The campaigns domain's refusals in the API's `{ code, message }`, with their status. */
async function answer<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw refusalProblem(error, "campaign", "send", "contact");
  }
}

type SourceFields = Pick<z.output<typeof CampaignParameter>, "field" | "fallback" | "value">;
const sourceOf = (p: SourceFields): ParameterSource =>
  p.value !== undefined ? { value: p.value } : p.fallback !== undefined ? { field: p.field!, fallback: p.fallback } : { field: p.field! };

/** The API's header: a text header's placeholder, or a media header's file. */
function headerOf(header: z.output<typeof CampaignHeader> | undefined): Pick<CampaignParameters, "header" | "headerMedia"> {
  if (!header) return {};
  if (header.link === undefined && header.mediaId === undefined) return { header: sourceOf(header) };
  const file = header.link !== undefined ? { link: header.link } : { mediaId: header.mediaId! };
  return { headerMedia: { ...file, ...(header.filename ? { filename: header.filename } : {}) } };
}

function parametersOf(body: z.output<typeof CampaignCreate>): CampaignParameters {
  return {
    body: body.parameters.map(sourceOf),
    ...headerOf(body.header),
    ...(body.buttons?.length ? { buttons: body.buttons.map((b) => ({ index: b.index, source: sourceOf(b) })) } : {}),
    ...(body.products ? { products: body.products } : {}),
  };
}

function inputOf(body: z.output<typeof CampaignCreate>): CampaignInput {
  return {
    name: body.name,
    from: body.from,
    template: { name: body.template, language: body.language },
    parameters: parametersOf(body),
    audience: body.audience,
    scheduledFor: body.scheduledFor ? new Date(body.scheduledFor) : null,
    draft: body.draft,
    smsFallback: body.smsFallback
      ? {
          mode: body.smsFallback.text === undefined ? "message" : "own",
          text: body.smsFallback.text,
          afterMinutes: body.smsFallback.afterMinutes,
        }
      : null,
  };
}

/** One campaign as the API answers it: with its SMS fallback's figures when it has one (one statement more). */
async function campaignOf(organizationId: string, id: string): Promise<CampaignView> {
  const view = await answer(getCampaign(organizationId, id));
  if (!view.smsFallback) return view;
  const summary = await campaignFallbackSummary(organizationId, id);
  const counts = {
    sent: summary?.sent ?? 0,
    pending: summary?.pending ?? 0,
    cancelled: summary?.cancelled ?? 0,
    skipped: summary?.skipped ?? 0,
  };
  return { ...view, smsFallback: { ...view.smsFallback, counts } };
}

const leftOutTotal = (leftOut: Partial<Record<string, number>>) => Object.values(leftOut).reduce<number>((a, b) => a + (b ?? 0), 0);

/** A started campaign's estimate is what its frozen audience counted. */
const frozenEstimate = (view: CampaignView): Estimate => ({
  recipients: (view.audienceSize ?? 0) - leftOutTotal(view.leftOut),
  leftOut: view.leftOut,
  estimatedCostKes: view.estimatedCostKes ?? 0,
});

interface Remembered {
  id: string;
  estimate: Estimate;
}

/**
 * POST /api/v1/campaigns: checked, counted and stored: started now, scheduled, or a draft. The
 * answer carries the estimate (who receives it, who is left out and why, the cost). With an
 * Idempotency-Key, a repeat within 24 hours answers the first campaign (as it is now) and creates nothing.
 */
export async function createApiCampaign(
  organizationId: string,
  body: z.output<typeof CampaignCreate>,
  idempotencyKey?: string,
  apiKeyId?: string,
  onReplay?: () => void,
) {
  const create = () => createCampaignNow(organizationId, body, apiKeyId);
  if (!idempotencyKey) return create();
  return oncePerKey(
    {
      organizationId,
      key: idempotencyKey,
      requestHash: hashRequest({ endpoint: "POST /api/v1/campaigns", body }),
      thing: "campaign",
    },
    {
      create,
      remember: (view): Remembered => ({ id: view.id, estimate: view.estimate }),
      replay: async (earlier: Remembered) => {
        onReplay?.();
        return { ...(await campaignOf(organizationId, earlier.id)), estimate: earlier.estimate };
      },
    },
  );
}

async function createCampaignNow(organizationId: string, body: z.output<typeof CampaignCreate>, apiKeyId?: string) {
  const input = inputOf(body);
  const now = new Date();
  // One that does not start now is counted here; one that starts has its frozen audience's figures.
  const startsLater = !!input.draft || (!!input.scheduledFor && input.scheduledFor > now);
  let estimate: Estimate | undefined;
  if (startsLater) {
    const counted = await answer(estimateCampaign(organizationId, await answer(checkCampaign(organizationId, input, now))));
    estimate = { recipients: counted.recipients, leftOut: counted.leftOut, estimatedCostKes: counted.estimatedCostCents / 100 };
  }
  // The key it is made with: whoever has held it cannot approve it (decision 045).
  const id = await answer(createCampaign({ organizationId, apiKeyId }, input, now));
  const view = await campaignOf(organizationId, id);
  estimate ??= frozenEstimate(view);
  return { ...view, estimate };
}

/** GET /api/v1/campaigns: newest first, a keyset page at a time. */
export async function listApiCampaigns(organizationId: string, query: z.output<typeof CampaignsQuery>) {
  const page = await listCampaigns(
    organizationId,
    { search: query.search, status: query.status },
    { cursor: query.cursor, limit: query.limit },
  );
  return { data: page.campaigns, nextCursor: page.next };
}

/** An id that is not a UUID names no campaign (and never reaches a uuid column, which would refuse it). */
function campaignId(id: string) {
  if (!UUID.test(id))
    throw new ApiProblem(404, "not_found", "No campaign with this id in your organisation: unknown, malformed or another's.");
  return id;
}

export const getApiCampaign = (organizationId: string, id: string) => campaignOf(organizationId, campaignId(id));

/** Pause, resume or cancel, then the campaign as it is now. */
export async function changeApiCampaign(organizationId: string, id: string, change: "pause" | "resume" | "cancel") {
  campaignId(id);
  const work = { pause: pauseCampaign, resume: resumeCampaign, cancel: cancelCampaign }[change];
  await answer(work({ organizationId }, id));
  return campaignOf(organizationId, id);
}
