// Several machines, proven (issue 78, "Proven, not assumed"): two built instances as two machines
// would run them, sharing nothing but the network services of a multi-machine deployment: nginx in
// front with the shipped site (deploy/nginx/jumbe.conf, made runnable as tests/support/nginx.ts does:
// plain HTTP on a free port), a primary PostgreSQL with a streaming standby (tests/support/replica.ts),
// PgBouncer in transaction pooling before the primary (the shipped deploy/pgbouncer/pgbouncer.ini),
// and the S3 sandbox for files. Each instance has its own empty DATA_DIR and runs its own job
// workers. Every check goes through nginx at the site's public name, as a browser or Meta uses it;
// each answer names the instance nginx chose (UPSTREAM_HEADER), and a GET is steered to one
// instance by asking again until nginx's round robin sends it there. A file uploaded through nginx
// to one instance downloads through nginx from the other and lives in the bucket, a webhook on one
// reaches live streams held through nginx on both, jobs run once with both instances' workers
// claiming, and analytics pages are read on the standby through either instance. PostgreSQL only;
// skipped without nginx, PgBouncer, pg_basebackup or a build, and mandatory in CI
// (JUMBE_REQUIRE_POSTGRES=1).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { buffer } from "node:stream/consumers";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import type { Readable } from "node:stream";
import { startS3Sandbox } from "@jumbe/sandbox/s3/test-support";
import { s3Client } from "~/.server/infrastructure/storage/s3";
import { buildExists, DEMO, reservePort, startBuiltServer, type BuiltServer } from "../support/built-server";
import { findNginx, siteConfigForTest, SITE_CONFIG, startNginx, UPSTREAM_HEADER, type RunningNginx } from "../support/nginx";
import { findPgBouncer, startPgBouncer, type RunningPgBouncer } from "../support/pgbouncer";
import { replicationAvailable, severalMachinesEnv, startReplicatedClusters, type ReplicatedClusters } from "../support/replica";
import { envelope, inboundChange, metaJson, sign } from "../support/whatsapp";

const postgres = !!process.env.TEST_DATABASE_URL;
const required = process.env.JUMBE_REQUIRE_POSTGRES === "1";
const bouncerBinary = findPgBouncer();
const nginxBinary = findNginx();
const replication = replicationAvailable();
const ready = postgres && !!bouncerBinary && !!nginxBinary && replication && buildExists();
const NAME = "jumbe.example.co.ke";
const APP_SECRET = randomBytes(24).toString("hex");
const METRICS_TOKEN = randomBytes(24).toString("hex");
const HTML = "text/html,application/xhtml+xml,*/*;q=0.8";

if (postgres && !ready) {
  const missing = [
    !nginxBinary && "nginx",
    !bouncerBinary && "PgBouncer",
    !replication && "pg_basebackup",
    !buildExists() && "a build (build/server/index.js)",
  ]
    .filter(Boolean)
    .join(", ");
  console.warn(`several machines test skipped: needs ${missing}. It runs in npm test's PostgreSQL step.`);
}

// CI installs nginx, PgBouncer and PostgreSQL's server binaries (.ci/run): there a missing one is a failure, not a skip.
describe.runIf(postgres && required && !(nginxBinary && bouncerBinary && replication))("several machines (CI)", () => {
  it("has nginx, PgBouncer and pg_basebackup installed", () => {
    expect(nginxBinary, "nginx is missing: .ci/run installs it, and JUMBE_REQUIRE_POSTGRES=1 makes this test mandatory").toBeDefined();
    expect(
      bouncerBinary,
      "pgbouncer is missing: .ci/run installs it, and JUMBE_REQUIRE_POSTGRES=1 makes this test mandatory",
    ).toBeDefined();
    expect(
      replication,
      "pg_basebackup is missing (PostgreSQL 15's server binaries), and JUMBE_REQUIRE_POSTGRES=1 makes this test mandatory",
    ).toBe(true);
  });
});

let clusters: ReplicatedClusters | undefined;
let bouncer: RunningPgBouncer | undefined;
let s3: Awaited<ReturnType<typeof startS3Sandbox>> | undefined;
let nginx: RunningNginx | undefined;
const servers: BuiltServer[] = [];
/** The site's public name with nginx's port, as a browser's Host and Origin carry it. */
let host = "";
let origin = "";

/** The demo organisation's connected number, and a conversation on it whose customer wrote within the day. */
interface DemoLine {
  organizationId: string;
  wabaId: string;
  phoneNumberId: string;
  digits: string;
  conversationId: string;
  waId: string;
}
let line: DemoLine;

/** Rows of the primary, read directly (not through PgBouncer). */
async function rows<Row>(text: string, values: unknown[] = []): Promise<Row[]> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: clusters!.primaryUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Row[];
  } finally {
    await client.end();
  }
}

/** Polls until `check` holds (a generous bound that only catches a hang, not a timed assertion). */
async function until(check: () => Promise<boolean> | boolean, what: string, boundMs = 90_000) {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(await check(), what).toBe(true);
}

beforeAll(async () => {
  if (!ready) return;
  // Held until nginx binds them: the instances' APP_URL is the site's public origin, nginx's port.
  const reserved = [await reservePort(), await reservePort()];
  const ports = { http: reserved[0]!.port, https: reserved[1]!.port };
  host = `${NAME}:${ports.https}`;
  origin = `http://${host}`;
  clusters = await startReplicatedClusters();
  bouncer = await startPgBouncer(bouncerBinary!, clusters.primaryUrl, { poolSize: 6 });
  s3 = await startS3Sandbox();
  const machine = {
    ...severalMachinesEnv(clusters, s3),
    META_APP_SECRET: APP_SECRET,
    METRICS_TOKEN,
    JOB_WORKERS: "2",
    APP_URL: origin,
    TRUST_PROXY: "loopback",
  };
  // One after the other: the first applies the migrations (through DATABASE_DIRECT_URL) and seeds
  // the demo, its files going to the bucket; the second finds both done.
  for (let i = 0; i < 2; i++) servers.push(await startBuiltServer(machine, { databaseUrl: bouncer.through(clusters.primaryUrl) }));
  const site = siteConfigForTest(readFileSync(SITE_CONFIG, "utf8"), { ...ports, upstreams: [servers[0]!.port, servers[1]!.port] });
  for (const r of reserved) await r.release();
  nginx = await startNginx(nginxBinary!, site, ports, { answerUpstream: true });
  const [found] = await rows<DemoLine>(
    `select u.organization_id as "organizationId", a.waba_id as "wabaId", p.phone_number_id as "phoneNumberId",
            p.phone_digits as digits, c.id as "conversationId", k.wa_id as "waId"
       from users u
       join whatsapp_phone_numbers p on p.organization_id = u.organization_id
       join whatsapp_accounts a on a.id = p.account_id
       join conversations c on c.organization_id = u.organization_id and c.phone_number_id = p.phone_number_id
       join contacts k on k.id = c.contact_id
      where u.email = $1 and k.wa_id is not null and c.last_inbound_at > now() - interval '20 hours'
      order by c.last_inbound_at desc limit 1`,
    [DEMO.email],
  );
  expect(found, "the demo has a connected number with a conversation open for replies").toBeDefined();
  line = found!;
}, 300_000);

afterAll(async () => {
  await nginx?.stop();
  for (const server of servers) await server.stop();
  await bouncer?.stop();
  await s3?.close();
  clusters?.destroy();
});

/** An answer through nginx, its body as the bytes that came. */
interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The instance nginx passed the request to (`127.0.0.1:<port>`), "" when nginx answered itself. */
  upstream: string;
}

const addressOf = (server: BuiltServer) => `127.0.0.1:${server.port}`;
const upstreamOf = (headers: http.IncomingHttpHeaders) => [headers[UPSTREAM_HEADER] ?? ""].flat().join(", ");

/** A request as a browser (or Meta) at the site's public name sends it: to nginx, with the site's Host. */
function requestThrough(
  method: string,
  target: string,
  headers: Record<string, string>,
  onAnswer: (response: http.IncomingMessage) => void,
) {
  const request = http.request(
    { host: "127.0.0.1", port: new URL(nginx!.base).port, method, path: target, headers: { host, ...headers }, agent: false },
    onAnswer,
  );
  // A hang detector, not a timed assertion.
  request.setTimeout(90_000, () => request.destroy(new Error(`${method} ${target} through nginx: no answer within 90 s`)));
  return request;
}

/** One request through nginx, answered in full (never followed: a redirect is the answer). */
function through(method: string, target: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = requestThrough(method, target, headers, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
          upstream: upstreamOf(response.headers),
        }),
      );
    });
    request.on("error", reject);
    request.end(body);
  });
}

/**
 * A GET through nginx that `server` answers. nginx's round robin takes turns between the
 * instances, so an answer from the other is asked again, as a reload would (harmless for a GET);
 * ten answers from the other mean nginx no longer spreads requests, a failure of its own.
 */
async function pinnedGet(server: BuiltServer, target: string, headers: Record<string, string>) {
  const others: string[] = [];
  for (let i = 0; i < 10; i++) {
    const answer = await through("GET", target, headers);
    if (answer.upstream === addressOf(server)) return answer;
    others.push(`${answer.status} from ${answer.upstream || "nginx"}`);
  }
  throw new Error(`nginx never passed GET ${target} to ${addressOf(server)}: ${others.join("; ")}`);
}

/** Signs in as the demo owner through nginx (the JSON API, on whichever instance): the session cookie alone. */
async function signIn() {
  const answer = await through(
    "POST",
    "/api/auth/signin",
    { origin, accept: "application/json", "content-type": "application/json" },
    JSON.stringify(DEMO),
  );
  expect(answer.status, answer.body.toString("utf8").slice(0, 300)).toBe(200);
  // Only the session cookie: a sign-in's write mark would send this person's reads to the primary until the standby replays it.
  const cookie = [answer.headers["set-cookie"] ?? []]
    .flat()
    .map((c) => c.split(";")[0]!)
    .find((c) => c.startsWith("jumbe_session="));
  expect(cookie, "a session cookie").toBeDefined();
  return cookie!;
}

/**
 * Meta's delivery of one inbound text to the demo number, signed with the instances' app secret,
 * posted through nginx (a POST nginx never sends twice): its wamid, and the instance that took it.
 */
async function deliverInbound(text: string) {
  const wamid = `wamid.${randomBytes(12).toString("hex")}`;
  const raw = metaJson(
    envelope([
      {
        id: line.wabaId,
        changes: [
          inboundChange(line.phoneNumberId, line.digits, {
            id: wamid,
            from: line.waId,
            name: "Wanjiku Kamau",
            text,
            timestamp: Math.floor(Date.now() / 1000),
          }),
        ],
      },
    ]),
  );
  const answer = await through(
    "POST",
    "/webhooks/whatsapp",
    { "content-type": "application/json", "x-hub-signature-256": sign(raw, APP_SECRET) },
    raw,
  );
  expect(answer.status, answer.body.toString("utf8")).toBe(200);
  expect(servers.map(addressOf), "an instance took the delivery").toContain(answer.upstream);
  return { wamid, upstream: answer.upstream };
}

/** A browser's EventSource on /chat/events through nginx, whichever instance nginx chose: the raw data of each `inbox` event as it arrives. */
function openStreamThrough(cookie: string): Promise<{ upstream: string; events: string[]; close: () => void }> {
  return new Promise((resolve, reject) => {
    const request = requestThrough(
      "GET",
      `/chat/events?conversation=${line.conversationId}`,
      { cookie, accept: "text/event-stream" },
      (response) => {
        const close = () => request.destroy();
        response.on("error", () => {}); // closed by close()
        if (response.statusCode !== 200) {
          close();
          return reject(new Error(`the live stream through nginx answered ${response.statusCode}`));
        }
        const events: string[] = [];
        let pending = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          pending += chunk;
          let end;
          while ((end = pending.indexOf("\n\n")) >= 0) {
            const lines = pending.slice(0, end).split("\n");
            pending = pending.slice(end + 2);
            if (lines.includes("event: inbox"))
              events.push(
                lines
                  .filter((l) => l.startsWith("data: "))
                  .map((l) => l.slice(6))
                  .join("\n"),
              );
          }
        });
        resolve({ upstream: upstreamOf(response.headers), events, close });
      },
    );
    request.on("error", reject);
    request.end();
  });
}

/** A live stream through nginx held on `server`: one held on the other instance is closed and opened again. */
async function openInboxStream(server: BuiltServer, cookie: string) {
  const others: string[] = [];
  for (let i = 0; i < 10; i++) {
    const stream = await openStreamThrough(cookie);
    if (stream.upstream === addressOf(server)) return stream;
    stream.close();
    others.push(stream.upstream);
  }
  throw new Error(`nginx never passed the live stream to ${addressOf(server)}: ${others.join("; ")}`);
}

/** Every file under `dir`, with its size. */
function filesUnder(dir: string): { file: string; size: number }[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile())
    .map((file) => ({ file, size: statSync(file).size }));
}

/** This instance's count of heavy reads sent to `target`, from its /metrics (through nginx, answered by `server`). */
async function replicaReads(server: BuiltServer, target: "replica" | "primary") {
  const answer = await pinnedGet(server, "/metrics", { authorization: `Bearer ${METRICS_TOKEN}` });
  expect(answer.status).toBe(200);
  const text = answer.body.toString("utf8");
  return Number(new RegExp(`^jumbe_replica_reads_total\\{target="${target}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
}

describe.skipIf(!ready)("two instances behind nginx on a primary with a standby, PgBouncer and S3", () => {
  it("downloads through nginx from one instance, byte for byte, a file uploaded through nginx to the other, kept in the bucket and on neither disk", async () => {
    const cookie = await signIn();
    const png = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), randomBytes(300 * 1024)]);
    const boundary = `jumbe-${randomBytes(8).toString("hex")}`;
    const caption = `Bei mpya za mbolea ${randomBytes(4).toString("hex")}`;
    const fileName = `bei-${randomBytes(3).toString("hex")}.png`;
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="intent"\r\n\r\nsend\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="body"\r\n\r\n${caption}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="${fileName}"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      png,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    // The composer's form, as a browser without JavaScript posts it: nginx passes it to one instance.
    const sent = await through(
      "POST",
      `/chat/${line.conversationId}`,
      { cookie, origin, accept: HTML, "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
    );
    expect(sent.status, sent.body.toString("utf8").slice(0, 300)).toBe(302);
    const uploadedOn = servers.find((server) => addressOf(server) === sent.upstream);
    expect(uploadedOn, `nginx passed the upload to an instance (${sent.upstream})`).toBeDefined();
    const other = servers.find((server) => server !== uploadedOn)!;
    const [reply] = await rows<{ id: string; storageKey: string; size: number }>(
      `select m.id, f.storage_key as "storageKey", f.size
         from messages m join media_files f on f.organization_id = m.organization_id and f.file_name = $3
        where m.organization_id = $1 and m.direction = 'outbound' and m.payload::text like $2`,
      [line.organizationId, `%${caption}%`, fileName],
    );
    expect(reply, "the reply and its file were stored").toBeDefined();
    expect(reply!.size).toBe(png.length);

    // The other instance, which never saw the upload, serves it through nginx to the same person.
    const download = await pinnedGet(other, `/chat/media/${reply!.id}`, { cookie });
    expect(download.status).toBe(200);
    expect(download.headers["content-type"]).toBe("image/png");
    expect(createHash("sha256").update(download.body).digest("hex")).toBe(createHash("sha256").update(png).digest("hex"));

    // The object is the bucket's, under the key the database names.
    const client = s3Client({
      endpoint: s3!.endpoint,
      bucket: s3!.bucket!,
      region: s3!.region,
      credentials: s3!.credentials,
      forcePathStyle: true,
      checksums: "when_required",
      downloads: "stream",
      presignSeconds: 300,
      timeoutMs: 5_000,
    });
    const object = await client.send(new GetObjectCommand({ Bucket: s3!.bucket!, Key: reply!.storageKey }));
    expect((await buffer(object.Body as Readable)).equals(png)).toBe(true);
    client.destroy();
    // And on neither instance's disk.
    for (const server of servers) expect(filesUnder(server.dataDir).filter((f) => f.size === png.length)).toEqual([]);
  }, 120_000);

  it("brings an inbound message delivered through nginx to one instance to live streams held through nginx on both", async () => {
    const [a, b] = [servers[0]!, servers[1]!];
    const cookie = await signIn();
    const onA = await openInboxStream(a, cookie);
    const onB = await openInboxStream(b, cookie);
    try {
      const text = `Mnaleta mbolea Nyeri lini? ${randomBytes(4).toString("hex")}`;
      const { upstream } = await deliverInbound(text);
      const [took, other] = upstream === addressOf(a) ? [onA, onB] : [onB, onA];
      const heard = (events: string[]) => events.some((data) => data.includes(text));
      await until(() => heard(other.events), "the other instance's stream got the message one instance received");
      await until(() => heard(took.events), "the receiving instance's stream got it too");
      expect(onA.events.filter((data) => data.includes(text))).toHaveLength(onB.events.filter((data) => data.includes(text)).length);
    } finally {
      onA.close();
      onB.close();
    }
  }, 120_000);

  it("runs each webhook's job once while both instances' workers claim jobs", async () => {
    const texts = Array.from({ length: 8 }, (_, i) => `Oda ${i + 1}: magunia ${randomBytes(3).toString("hex")}`);
    // All at once through nginx, which spreads them over both instances: each stores its deliveries and wakes its own workers.
    const delivered = await Promise.all(texts.map((text) => deliverInbound(text)));
    expect([...new Set(delivered.map((d) => d.upstream))].sort(), "nginx passed deliveries to both instances").toEqual(
      servers.map(addressOf).sort(),
    );
    const wamids = delivered.map((d) => d.wamid);
    const stored = () =>
      rows<{ wamid: string; copies: number }>(
        `select wamid, count(*)::int as copies from messages
          where organization_id = $1 and wamid = any($2::text[]) group by wamid`,
        [line.organizationId, wamids],
      );
    await until(async () => (await stored()).length === wamids.length, "every delivered message was stored");
    expect((await stored()).map((r) => r.copies)).toEqual(wamids.map(() => 1));
    // The deliveries' jobs each finished, none failed, and each delivery stored once and processed once.
    // (A job may be tried again after a fault of the moment: its effect, above and below, is what counts once.)
    const likeAny = wamids.map((w) => `%${w}%`);
    const jobs = () =>
      rows<{ attempts: number; finished: boolean; failed: boolean }>(
        `select j.attempts, j.finished_at is not null as finished, j.failed_at is not null as failed
           from jobs j
          where j.queue = 'whatsapp.webhook' and exists (
            select 1 from webhook_events e, jsonb_array_elements_text(j.payload->'eventIds') as ids(id)
             where e.id = ids.id::bigint and e.body like any($1::text[]))`,
        [likeAny],
      );
    const events = () => rows<{ outcome: string | null }>(`select outcome from webhook_events where body like any($1::text[])`, [likeAny]);
    await until(async () => (await jobs()).every((j) => j.finished || j.failed), "every delivery's job was settled");
    const settled = await jobs();
    expect(settled.length).toBeGreaterThan(0);
    expect(
      settled.map(({ finished, failed }) => ({ finished, failed })),
      JSON.stringify(settled),
    ).toEqual(settled.map(() => ({ finished: true, failed: false })));
    await until(async () => (await events()).every((e) => e.outcome !== null), "every delivery was processed");
    expect((await events()).map((e) => e.outcome)).toEqual(wamids.map(() => "processed"));
  }, 180_000);

  it("reads an analytics page on the standby, through nginx to either instance", async () => {
    const cookie = await signIn();
    for (const server of servers) {
      const before = await replicaReads(server, "replica");
      // The instance measures the standby's lag on its own schedule: until it does, reads go to the primary.
      await until(
        async () => {
          const page = await pinnedGet(server, "/analytics", { cookie, accept: HTML });
          expect(page.status).toBe(200);
          return (await replicaReads(server, "replica")) > before;
        },
        `${addressOf(server)} read its analytics on the standby`,
      );
    }
    // It is a standby, and the instances hold connections to it (the only clients it has besides this one).
    const [standby] = await clusters!.standby(
      `select pg_is_in_recovery() as recovery,
              (select count(*)::int from pg_stat_activity
                where datname = 'jumbe' and backend_type = 'client backend' and pid <> pg_backend_pid()) as clients`,
    );
    expect(standby).toMatchObject({ recovery: true });
    expect(standby!.clients).toBeGreaterThan(0);
  }, 180_000);
});
