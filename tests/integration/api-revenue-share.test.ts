import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { createVerifiedUser } from "../support/accounts";
import { startApiV1Server, tenantWithApiKey } from "../support/api-v1-server";
import Ajv from "ajv";
import { openApiDocument } from "~/.server/adapters/api-v1/openapi";
import { settleMonth } from "~/.server/domains/revenue-share/settle";

// Issue 46: GET /api/v1/partner answers the calling organisation's own partner record, its clients
// (with what they paid this month), its transactions a page at a time (by month) and its
// settlements; an organisation that is not a partner gets a 404 problem; another partner's key sees
// only its own.

type ApiV1Server = Awaited<ReturnType<typeof startApiV1Server>>;
let apiServer: ApiV1Server;
const tenant = tenantWithApiKey;
const call = async (key: string, path: string) => {
  const { status, type, body } = await apiServer.answer(key, "GET", path);
  return { status, type, body };
};

beforeAll(async () => {
  apiServer = await startApiV1Server();
});
afterAll(async () => {
  await apiServer.close();
});
beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: apiServer.base }));
});

let n = 0;
async function partnerWithClients(name: string, clientNames: string[]) {
  const me = await tenant(name);
  const code = `API${Date.now().toString(36).toUpperCase()}${++n}`;
  const [p] = await rawQuery<{ id: string }>(
    `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin, approved_at)
     values ($1, $2, $3, 'Integrator', 'active', 1800, 'mpesa', '254712345678', 'P051234567Q', now()) returning id`,
    [me.organizationId, code, name],
  );
  const clients: string[] = [];
  for (const client of clientNames) {
    const account = await createVerifiedUser({ businessName: client });
    await rawQuery(
      `insert into partner_attributions (partner_id, organization_id, source, started_at) values ($1, $2, 'referral', now() - interval '40 days')`,
      [p!.id, account.organization.id],
    );
    clients.push(account.organization.id);
  }
  return { ...me, partnerId: p!.id, code, clients };
}

/** A ledger row as the recorder writes it (the recorder itself: revenue-share-ledger.test.ts). */
const transaction = (partnerId: string, clientId: string, amount: number, at: string, settlementId: string | null = null) =>
  rawQuery(
    `insert into partner_transactions (partner_id, client_organization_id, invoice_id, kind, amount_cents, share_bps, partner_cents, platform_cents, occurred_at, settlement_id)
     values ($1, $2, gen_random_uuid(), 'topup', $3::bigint, 1800, round($3::bigint * 0.18)::bigint, $3::bigint - round($3::bigint * 0.18)::bigint, $4::timestamptz, $5::uuid)`,
    [partnerId, clientId, amount, at, settlementId],
  );

describe("GET /api/v1/partner", () => {
  it("answers the partner's record, clients with this month's payments, paged transactions by month and settlements", async () => {
    const me = await partnerWithClients("Lakeside Integrators", ["Kisumu Boda Saccos", "Homa Bay Fisheries"]);
    const [settlement] = await rawQuery<{ id: string }>(
      `insert into partner_settlements (partner_id, period, transactions, revenue_cents, partner_cents, withholding_bps, withholding_cents, net_cents, payable_cents, payout_method, status, payout_reference, paid_at)
       values ($1, '2026-09-01', 2, 300000, 54000, 500, 2700, 51300, 51300, 'mpesa', 'paid', 'TIK0AB12CD', '2026-10-15T09:00:00Z') returning id`,
      [me.partnerId],
    );
    await transaction(me.partnerId, me.clients[0]!, 100_000, "2026-09-03T08:00:00Z", settlement!.id);
    await transaction(me.partnerId, me.clients[1]!, 200_000, "2026-09-20T08:00:00Z", settlement!.id);
    for (let day = 1; day <= 5; day++) await transaction(me.partnerId, me.clients[0]!, 10_000 * day, `2026-10-0${day}T08:00:00Z`);
    await transaction(me.partnerId, me.clients[1]!, 50_000, new Date().toISOString());

    const answer = await call(me.key, "/api/v1/partner?limit=3");
    expect(answer.status).toBe(200);
    expect(answer.body.partner).toEqual({
      id: me.partnerId,
      name: "Lakeside Integrators",
      category: "Integrator",
      status: "active",
      shareBps: 1800,
      code: me.code,
      referralLink: `${apiServer.base}/signup?ref=${me.code}`,
      payoutMethod: "mpesa",
    });
    expect(answer.body.clients.map((c: { name: string; paidThisMonthCents: number }) => [c.name, c.paidThisMonthCents]).sort()).toEqual([
      ["Homa Bay Fisheries", 50_000],
      ["Kisumu Boda Saccos", 0],
    ]);
    expect(answer.body.settlements).toEqual([
      {
        id: settlement!.id,
        month: "2026-09",
        status: "paid",
        transactions: 2,
        revenueCents: 300_000,
        partnerCents: 54_000,
        withholdingBps: 500,
        withholdingCents: 2_700,
        netCents: 51_300,
        carriedInCents: 0,
        carriedOutCents: 0,
        payoutCents: 51_300,
        method: "mpesa",
        reference: "TIK0AB12CD",
        paidAt: "2026-10-15T09:00:00.000Z",
      },
    ]);
    // Eight transactions, newest first, three a page.
    const seen: number[] = [];
    let page = answer.body.transactions;
    for (let i = 0; i < 5 && page; i++) {
      seen.push(...page.data.map((t: { amountCents: number }) => t.amountCents));
      page = page.nextCursor ? (await call(me.key, `/api/v1/partner?limit=3&cursor=${page.nextCursor}`)).body.transactions : null;
    }
    expect(seen).toEqual([50_000, 50_000, 40_000, 30_000, 20_000, 10_000, 200_000, 100_000]);
    expect(answer.body.transactions.data[0]).toMatchObject({
      client: "Homa Bay Fisheries",
      kind: "topup",
      shareBps: 1800,
      partnerCents: 9_000,
    });

    const october = await call(me.key, "/api/v1/partner?month=2026-10");
    expect(october.body.transactions.data.map((t: { amountCents: number }) => t.amountCents)).toEqual([
      50_000, 40_000, 30_000, 20_000, 10_000,
    ]);
    expect(october.body.transactions.nextCursor).toBeNull();
    const september = await call(me.key, "/api/v1/partner?month=2026-09");
    expect(september.body.transactions.data.every((t: { settlementId: string }) => t.settlementId === settlement!.id)).toBe(true);

    for (const bad of ["month=2026-13", "month=October", "cursor=%21%21", "limit=0", "limit=101", "partner=x"]) {
      const refused = await call(me.key, `/api/v1/partner?${bad}`);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.error?.code ?? refused.body.code, bad).toBe("invalid_request");
    }
  });

  it("answers 404 to an organisation that is not a partner, and another partner sees only its own", async () => {
    const me = await partnerWithClients("Coast Agency", ["Malindi Tours"]);
    await transaction(me.partnerId, me.clients[0]!, 70_000, "2026-10-02T08:00:00Z");
    const outsider = await tenant("Not A Partner Ltd");
    const refused = await call(outsider.key, "/api/v1/partner");
    expect(refused.status).toBe(404);
    expect(JSON.stringify(refused.body)).toContain('"not_found"');
    expect(JSON.stringify(refused.body)).toContain(
      "No partner record: your organisation is not a partner in Jumbe's revenue share programme.",
    );

    const other = await partnerWithClients("Highlands Reseller", []);
    const theirs = await call(other.key, "/api/v1/partner");
    expect(theirs.status).toBe(200);
    expect(theirs.body.partner.id).toBe(other.partnerId);
    expect(theirs.body.clients).toEqual([]);
    expect(theirs.body.transactions).toEqual({ data: [], nextCursor: null, hasMore: false });
    expect(theirs.body.settlements).toEqual([]);
    // Another partner's cursor (a transaction of Coast Agency's) finds nothing of theirs either.
    const mine = await call(me.key, "/api/v1/partner?limit=1");
    expect(mine.body.transactions.data).toHaveLength(1);
    const [row] = await rawQuery<{ id: string }>(`select id::text from partner_transactions where partner_id = $1`, [me.partnerId]);
    const foreignCursor = Buffer.from(`t${row!.id}`).toString("base64url");
    expect((await call(other.key, `/api/v1/partner?cursor=${foreignCursor}`)).body.transactions).toEqual({
      data: [],
      nextCursor: null,
      hasMore: false,
    });
  });

  it("answers 200 for a partner with a settlement the run made, the body valid by the OpenAPI document (issue 72)", async () => {
    const me = await partnerWithClients("Thika Road Integrators", ["Juja Farm Supplies"]);
    // KES 3,630.14 net of VAT at 18%: the run settles it with 5% withheld, to be paid by M-Pesa.
    await transaction(me.partnerId, me.clients[0]!, 363_014, "2026-09-12T08:00:00Z");
    await settleMonth("2026-09-01");
    const answer = await call(me.key, "/api/v1/partner");
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const [settlement] = answer.body.settlements;
    expect(settlement.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(answer.body.transactions.data[0].settlementId).toBe(settlement.id);
    // 65,343 cents earned, 3,267 withheld: 62,076 net, KES 620 paid by M-Pesa and 76 cents carried to the next settlement.
    expect(settlement).toMatchObject({
      month: "2026-09",
      status: "pending",
      partnerCents: 65_343,
      withholdingCents: 3_267,
      netCents: 62_076,
      carriedInCents: 0,
      carriedOutCents: 76,
      payoutCents: 62_000,
    });
    // The body is valid by the published document's Partner schema (uuid formats included).
    const document = JSON.parse(JSON.stringify(openApiDocument())) as { components: { schemas: Record<string, unknown> } };
    const ajv = new Ajv({ allErrors: true, unknownFormats: "ignore", schemaId: "auto", logger: false, format: "full" });
    ajv.addSchema(document as object, "openapi.json");
    const valid = ajv.validate({ $ref: "openapi.json#/components/schemas/Partner" }, answer.body);
    expect(valid ? [] : ajv.errors).toEqual([]);
  });
});
