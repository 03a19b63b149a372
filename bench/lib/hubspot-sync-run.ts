// One run of bench/hubspot-sync.mjs (node --import tsx): a HubSpot sync of 10,000 contacts each way
// against the sandbox on a free loopback port, with its rate limit enforced, in this process. Prints
// one JSON line. Arguments: <case> <max calls per window> <window ms> <contacts> [databaseUrl].
import { performance } from "node:perf_hooks";
import diagnostics from "node:diagnostics_channel";
import type { IncomingMessage, ServerResponse } from "node:http";
import { closeDatabase, openDatabase, rawQuery } from "../../app/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "../../app/.server/infrastructure/config/env";
import { saveConnection } from "../../app/.server/domains/integrations/connections";
import { registerProvider } from "../../app/.server/domains/integrations/providers";
import { hubspotProvider } from "../../app/.server/domains/integrations/hubspot/provider";
import { hubspotConnection } from "../../app/.server/domains/integrations/hubspot/calls";
import { syncConnection } from "../../app/.server/domains/integrations/hubspot/sync";
import { startHubspot, CLIENT_ID, CLIENT_SECRET, PWANI_HUB_ID } from "../../sandbox/hubspot/test-support";

const [name = "limited", maxText = "100", windowText = "10000", contactsText = "10000", databaseUrl] = process.argv.slice(2);
const max = Number(maxText);
const intervalMs = Number(windowText);
const contacts = Number(contactsText);

async function main() {
  // The empty portal, so HubSpot holds exactly what the benchmark puts there.
  const h = await startHubspot({ rateLimit: { max, intervalMs } });
  setEnv(
    parseEnv({
      NODE_ENV: "test",
      LOG_LEVEL: "error",
      APP_URL: "http://127.0.0.1:9",
      HUBSPOT_CLIENT_ID: CLIENT_ID,
      HUBSPOT_CLIENT_SECRET: CLIENT_SECRET,
      HUBSPOT_AUTH_URL: h.base,
      HUBSPOT_API_URL: h.base,
    }),
  );
  await openDatabase(databaseUrl ? { databaseUrl, poolSize: 4 } : { dataDir: "memory://" });
  registerProvider(hubspotProvider);
  const [org] = await rawQuery<{ id: string }>(
    `insert into organizations (name, business_id, status) values ('Bench Duka Ltd', 'BENCH-' || substr(md5(random()::text), 1, 8), 'active') returning id`,
  );
  const organizationId = org!.id;
  // Half the contacts start in Jumbe, half in HubSpot: the sync moves each half the other way.
  const half = Math.floor(contacts / 2);
  await rawQuery(
    `insert into contacts (organization_id, name, phone, wa_id)
     select $1, 'Mteja ' || i, '+2547' || lpad(i::text, 8, '0'), '2547' || lpad(i::text, 8, '0') from generate_series(1, $2) as i`,
    [organizationId, half],
  );
  for (let from = 0; from < contacts - half; from += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, contacts - half - from) }, (_, k) =>
        h.control(`/portals/${PWANI_HUB_ID}/contacts`, {
          body: { properties: { firstname: "Mnunuzi", lastname: String(from + k), phone: `+2541${String(from + k).padStart(8, "0")}` } },
        }),
      ),
    );
  const tokens = await h.connect(PWANI_HUB_ID);
  await saveConnection(
    { organizationId, userId: null as unknown as string },
    "hubspot",
    { accessToken: tokens.access_token, refreshToken: tokens.refresh_token, expiresAt: new Date(Date.now() + 1_800_000), scopes: [] },
    { label: "bench", externalId: String(PWANI_HUB_ID) },
    {},
  );
  const connection = (await hubspotConnection(organizationId))!;
  // The sandbox's own answer time (the fake's, not Jumbe's): each CRM call from its request's arrival
  // to its answer's end. The sandbox shares this process's event loop, so this is an upper bound.
  const arrived = new WeakMap<IncomingMessage, number>();
  let sandboxMs = 0;
  const onRequest = ({ request }: { request: IncomingMessage }) => {
    if (request.url?.includes("/crm/")) arrived.set(request, performance.now());
  };
  const onFinish = ({ request }: { request: IncomingMessage; response: ServerResponse }) => {
    const at = arrived.get(request);
    if (at !== undefined) sandboxMs += performance.now() - at;
  };
  diagnostics.subscribe("http.server.request.start", onRequest as (message: unknown) => void);
  diagnostics.subscribe("http.server.response.finish", onFinish as (message: unknown) => void);
  h.sandbox.calls().length = 0;
  const callsBefore = h.sandbox.calls().length;
  const started = performance.now();
  const outcome = await syncConnection(connection, { retrying: false });
  const seconds = (performance.now() - started) / 1000;
  const calls = h.sandbox
    .calls()
    .slice(callsBefore)
    .filter((c) => c.path.includes("/crm/"));
  const accepted = calls.filter((c) => c.status !== 429).length;
  const refused = calls.length - accepted;
  const [linked] = await rawQuery<{ n: number }>(`select count(*)::int as n from hubspot_contact_links where organization_id = $1`, [
    organizationId,
  ]);
  // The fastest the limit allows N calls: the last may start once floor((N-1)/max) windows have passed.
  const limitSeconds = (Math.floor((accepted - 1) / max) * intervalMs) / 1000;
  console.log(
    JSON.stringify({
      case: name,
      database: databaseUrl ? "postgresql" : "pglite",
      limit: { max, intervalMs, perSecond: (max * 1000) / intervalMs },
      contacts,
      received: outcome.received,
      sent: outcome.sent,
      linked: linked!.n,
      calls: accepted,
      refused429: refused,
      seconds: Math.round(seconds * 100) / 100,
      sandboxSeconds: Math.round(sandboxMs / 10) / 100,
      callsPerSecond: Math.round((accepted / seconds) * 100) / 100,
      ofLimit: Math.round((accepted / seconds / ((max * 1000) / intervalMs)) * 1000) / 10,
      ofFastestAllowed: limitSeconds > 0 ? Math.round((limitSeconds / seconds) * 1000) / 10 : null,
    }),
  );
  await h.close();
  await closeDatabase();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
