import { sql } from "drizzle-orm";
import type { Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";

/** A request's row as the paths that change it read it, under its lock. */
export interface LockedRequest {
  id: string;
  organization_id: string;
  shortcode_id: string;
  contact_id: string;
  conversation_id: string | null;
  amount_kes: number;
  description: string;
  reference: string;
  status: "open" | "paid" | "expired" | "cancelled";
  expired: boolean;
  phone_asked_at: Date | string | null;
  paid_receipt: string | null;
  paid_amount_kes: number | null;
}

export interface AttemptRow {
  id: string;
  request_id: string;
  phone: string;
  checkout_request_id: string | null;
  state: "pending" | "paid" | "failed" | "in_doubt";
  created_at: Date | string;
}

/**
 * The one door to a request's state (decision 137): select … for update. Every tap, STK callback,
 * status-query result, C2B confirmation and the expiry job go through it, so two of them never
 * both see it unpaid. With an organisation, another tenant's request is not found.
 */
export async function lockRequest(tx: Executor, requestId: string, organizationId?: string): Promise<LockedRequest | null> {
  const rows = await queryRows<LockedRequest>(
    tx,
    sql`
    select id, organization_id, shortcode_id, contact_id, conversation_id, amount_kes, description, reference, status,
           expires_at <= now() as expired, phone_asked_at, paid_receipt, paid_amount_kes
    from payment_requests
    where id = ${requestId} and (${organizationId ?? null}::uuid is null or organization_id = ${organizationId ?? null}::uuid)
    for update`,
  );
  return rows[0] ?? null;
}

/** The request's attempt still waiting for M-Pesa's answer (read under the request's lock). */
export async function unfinishedAttempt(tx: Executor, requestId: string): Promise<AttemptRow | null> {
  const rows = await queryRows<AttemptRow>(
    tx,
    sql`
    select id, request_id, phone, checkout_request_id, state, created_at from payment_attempts
    where request_id = ${requestId} and state in ('pending', 'in_doubt') order by created_at desc limit 1`,
  );
  return rows[0] ?? null;
}
