import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRow, queryRows } from "../../../infrastructure/db/query";
import { isUuid } from "../../../infrastructure/db/keyset";
import { env } from "../../../infrastructure/config/env";
import { recordActivity } from "../../activity";
import {
  FLOW_IDLE_DEFAULT,
  FLOW_IDLE_MAX,
  FLOW_IDLE_MIN,
  FLOW_MESSAGES,
  FLOW_NAME_MAX,
  FLOW_TEXT_MAX,
  FLOWS_MAX,
  type FlowStatus,
} from "~/lib/schemas/flows";
import type { RuleActor } from "../rules";
import { checkStepProducts } from "./products";
import { checkStepAddresses, checkSteps, refuseFlow, type FlowStep } from "./steps";

/**
 * Chatbot flows (issue 44): members edit a flow's draft steps; Publish freezes them as a new version
 * that new sessions start on, while sessions already running finish on theirs. At most FLOWS_MAX
 * flows an organisation, FLOW_STEPS_MAX steps a flow.
 */

export interface FlowView {
  id: string;
  name: string;
  status: FlowStatus;
  steps: FlowStep[];
  idleMinutes: number;
  idleText: string;
  liveVersion: number | null;
  /** The draft differs from the live version (or nothing is published yet). */
  unpublished: boolean;
  activeSessions: number;
  /** Active sessions on a version older than the live one. */
  olderSessions: number;
  completedSessions: number;
  createdAt: string;
  updatedAt: string;
}

export interface FlowInput {
  name?: string;
  idleMinutes?: number;
  idleText?: string;
  steps?: unknown[];
}

interface FlowRow {
  id: string;
  name: string;
  status: FlowStatus;
  steps: FlowStep[];
  idle_minutes: number;
  idle_text: string;
  live_version: number | null;
  live_steps: FlowStep[] | null;
  active: number;
  older: number;
  completed: number;
  created_at: string | Date;
  updated_at: string | Date;
}

const SELECT = sql`
  select f.id, f.name, f.status, f.steps, f.idle_minutes, f.idle_text, v.version as live_version, v.steps as live_steps,
         (select count(*)::int from flow_sessions s join flow_versions sv on sv.id = s.flow_version_id
            where sv.flow_id = f.id and s.status = 'active') as active,
         (select count(*)::int from flow_sessions s join flow_versions sv on sv.id = s.flow_version_id
            where sv.flow_id = f.id and s.status = 'active' and sv.id is distinct from f.live_version_id) as older,
         (select count(*)::int from flow_sessions s join flow_versions sv on sv.id = s.flow_version_id
            where sv.flow_id = f.id and s.status = 'completed') as completed,
         f.created_at, f.updated_at
  from flows f left join flow_versions v on v.id = f.live_version_id`;

const viewOf = (r: FlowRow): FlowView => ({
  id: r.id,
  name: r.name,
  status: r.status,
  steps: Array.isArray(r.steps) ? r.steps : [],
  idleMinutes: r.idle_minutes,
  idleText: r.idle_text,
  liveVersion: r.live_version,
  unpublished: r.live_steps === null || JSON.stringify(r.live_steps) !== JSON.stringify(r.steps),
  activeSessions: r.active,
  olderSessions: r.older,
  completedSessions: r.completed,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

const notFound = () => refuseFlow(404, FLOW_MESSAGES.notFound);

export async function listFlows(organizationId: string): Promise<FlowView[]> {
  const rows = await queryRows<FlowRow>(
    db(),
    sql`${SELECT} where f.organization_id = ${organizationId} order by f.created_at, f.id limit ${FLOWS_MAX * 2}`,
  );
  return rows.map(viewOf);
}

/** One flow of the organisation; a refusal (404) for another's or an unknown id. */
export async function getFlow(organizationId: string, id: string, executor: Executor = db()): Promise<FlowView> {
  if (!isUuid(id)) throw notFound();
  const row = await queryRow<FlowRow>(executor, sql`${SELECT} where f.organization_id = ${organizationId} and f.id = ${id}`);
  if (!row) throw notFound();
  return viewOf(row);
}

function checkedName(raw: string | undefined) {
  const name = (raw ?? "").trim();
  if (!name || [...name].length > FLOW_NAME_MAX) throw refuseFlow(400, FLOW_MESSAGES.nameRequired, "name");
  return name;
}

function checkedIdle(minutes: number | undefined, text: string | undefined) {
  const idleMinutes = minutes ?? FLOW_IDLE_DEFAULT;
  if (!Number.isInteger(idleMinutes) || idleMinutes < FLOW_IDLE_MIN || idleMinutes > FLOW_IDLE_MAX)
    throw refuseFlow(400, FLOW_MESSAGES.idle, "idleMinutes");
  const idleText = (text ?? "").replace(/\r\n/g, "\n").trim();
  if ([...idleText].length > FLOW_TEXT_MAX) throw refuseFlow(400, FLOW_MESSAGES.text, "idleText");
  return { idleMinutes, idleText };
}

const record = (actor: RuleActor, action: string, name: string) =>
  recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action,
    details: name,
    meta: actor.meta,
  });

const lockFlows = (tx: Executor, organizationId: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`flows:${organizationId}`}))`);

/** Adds a draft flow (at most FLOWS_MAX an organisation). */
export async function createFlow(actor: RuleActor, input: FlowInput): Promise<FlowView> {
  const name = checkedName(input.name);
  const { idleMinutes, idleText } = checkedIdle(input.idleMinutes, input.idleText);
  const steps = checkSteps(input.steps ?? [], env().production);
  await checkStepAddresses(steps);
  await checkStepProducts(actor.organizationId, steps);
  const id = await db().transaction(async (tx) => {
    await lockFlows(tx, actor.organizationId);
    const count = await queryRow<{ n: number }>(
      tx,
      sql`select count(*)::int as n from flows where organization_id = ${actor.organizationId}`,
    );
    if ((count?.n ?? 0) >= FLOWS_MAX) throw refuseFlow(409, FLOW_MESSAGES.limit, "form");
    const saved = await queryRow<{ id: string }>(
      tx,
      sql`insert into flows (organization_id, name, steps, idle_minutes, idle_text, created_by)
          values (${actor.organizationId}, ${name}, ${JSON.stringify(steps)}::jsonb, ${idleMinutes}, ${idleText}, ${actor.userId})
          returning id`,
    );
    return saved!.id;
  });
  await record(actor, "Flow added", name);
  return getFlow(actor.organizationId, id);
}

/** Changes a flow's draft (its name, idle time and text, steps): the live version stays until published. */
export async function updateFlow(actor: RuleActor, id: string, input: FlowInput): Promise<FlowView> {
  const flow = await getFlow(actor.organizationId, id);
  const name = input.name === undefined ? flow.name : checkedName(input.name);
  const { idleMinutes, idleText } = checkedIdle(input.idleMinutes ?? flow.idleMinutes, input.idleText ?? flow.idleText);
  const steps = input.steps === undefined ? flow.steps : checkSteps(input.steps, env().production);
  if (input.steps !== undefined) {
    await checkStepAddresses(steps);
    await checkStepProducts(actor.organizationId, steps, flow.steps);
  }
  await db().execute(sql`
    update flows set name = ${name}, idle_minutes = ${idleMinutes}, idle_text = ${idleText}, steps = ${JSON.stringify(steps)}::jsonb,
           updated_at = now()
    where organization_id = ${actor.organizationId} and id = ${id}`);
  await record(actor, "Flow changed", name);
  return getFlow(actor.organizationId, id);
}

/** Freezes the draft as a new version and makes it live: new sessions start on it, running ones keep theirs. */
export async function publishFlow(actor: RuleActor, id: string): Promise<FlowView> {
  const flow = await getFlow(actor.organizationId, id);
  if (!flow.steps.length) throw refuseFlow(400, FLOW_MESSAGES.noSteps, "steps");
  // Checked again: a draft saved under other rules (or before decision 099) is not published as it is.
  await checkStepAddresses(checkSteps(flow.steps, env().production));
  await db().transaction(async (tx) => {
    await tx.execute(sql`select id from flows where id = ${id} for update`);
    const version = await queryRow<{ id: string }>(
      tx,
      sql`insert into flow_versions (flow_id, version, steps, published_by)
          select ${id}, coalesce(max(version), 0) + 1, (select steps from flows where id = ${id}), ${actor.userId}
          from flow_versions where flow_id = ${id}
          returning id`,
    );
    await tx.execute(sql`update flows set live_version_id = ${version!.id}, status = 'live', updated_at = now() where id = ${id}`);
  });
  await record(actor, "Flow published", flow.name);
  return getFlow(actor.organizationId, id);
}

/** Turns a published flow on (live) or off; an off flow starts no session, running ones finish. */
export async function setFlowEnabled(actor: RuleActor, id: string, enabled: boolean): Promise<FlowView> {
  const flow = await getFlow(actor.organizationId, id);
  if (enabled && flow.liveVersion === null) throw refuseFlow(400, FLOW_MESSAGES.notPublished, "form");
  await db().execute(sql`update flows set status = ${enabled ? "live" : "off"}, updated_at = now()
                         where organization_id = ${actor.organizationId} and id = ${id}`);
  await record(actor, enabled ? "Flow turned on" : "Flow turned off", flow.name);
  return getFlow(actor.organizationId, id);
}

/** Deletes a flow, its versions and its sessions (running ones stop: the customer hears nothing more). */
export async function deleteFlow(actor: RuleActor, id: string): Promise<void> {
  const flow = await getFlow(actor.organizationId, id);
  await db().execute(sql`delete from flows where organization_id = ${actor.organizationId} and id = ${id}`);
  await record(actor, "Flow deleted", flow.name);
}

/** The draft's steps replaced (the builder's changes): checked whole. */
export async function saveSteps(actor: RuleActor, id: string, steps: unknown[]): Promise<FlowView> {
  return updateFlow(actor, id, { steps });
}
