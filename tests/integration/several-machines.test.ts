// Several machines, proven (issue 78, "Proven, not assumed"): two built instances as two machines
// would run them, sharing nothing but the network services of a multi-machine deployment: a
// primary PostgreSQL with a streaming standby (tests/support/replica.ts), PgBouncer in transaction
// pooling before the primary (the shipped deploy/pgbouncer/pgbouncer.ini), and the S3 sandbox for
// files. Each instance has its own empty DATA_DIR and runs its own job workers. Checked through the
// instances' HTTP as a browser or Meta uses them: a file uploaded on one downloads from the other and
// lives in the bucket, a webhook on one reaches live streams held on both, jobs run once with both
// instances' workers claiming, and analytics pages are read on the standby. PostgreSQL only; skipped
// without PgBouncer, pg_basebackup or a build, and mandatory in CI (JUMBE_REQUIRE_POSTGRES=1).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { buffer } from "node:stream/consumers";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import type { Readable } from "node:stream";
import { startS3Sandbox } from "@jumbe/sandbox/s3/test-support";
import { s3Client } from "~/.server/infrastructure/storage/s3";
import { buildExists, DEMO, signInCookie, startBuiltServer, type BuiltServer } from "../support/built-server";
import { findPgBouncer, startPgBouncer, type RunningPgBouncer } from "../support/pgbouncer";
import { replicationAvailable, startReplicatedClusters, type ReplicatedClusters } from "../support/replica";
import { envelope, inboundChange, metaJson, sign } from "../support/whatsapp";

const postgres = !!process.env.TEST_DATABASE_URL;
const required = process.env.JUMBE_REQUIRE_POSTGRES === "1";
const bouncerBinary = findPgBouncer();
const replication = replicationAvailable();
const ready = postgres && !!bouncerBinary && replication && buildExists();
const APP_SECRET = randomBytes(24).toString("hex");
const METRICS_TOKEN = randomBytes(24).toString("hex");
const HTML = "text/html,application/xhtml+xml,*/*;q=0.8";

if (postgres && !ready) {
  const missing = [!bouncerBinary && "PgBouncer", !replication && "pg_basebackup", !buildExists() && "a build (build/server/index.js)"]
    .filter(Boolean)
    .join(", ");
  console.warn(`several machines test skipped: needs ${missing}. It runs in npm test's PostgreSQL step.`);
}

// CI installs PgBouncer and PostgreSQL's server binaries (.ci/run): there a missing one is a failure, not a skip.
describe.runIf(postgres && required && !(bouncerBinary && replication))("several machines (CI)", () => {
  it("has PgBouncer and pg_basebackup installed", () => {
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
const servers: BuiltServer[] = [];

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
  clusters = await startReplicatedClusters();
  bouncer = await startPgBouncer(bouncerBinary!, clusters.primaryUrl, { poolSize: 6 });
  s3 = await startS3Sandbox();
  const machine = {
    DATABASE_POOLER: "pgbouncer-transaction",
    DATABASE_DIRECT_URL: clusters.primaryUrl,
    DATABASE_REPLICA_URL: clusters.standbyUrl,
    STORAGE: "s3",
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: s3.bucket!,
    S3_REGION: s3.region,
    S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    S3_FORCE_PATH_STYLE: "1",
    META_APP_SECRET: APP_SECRET,
    METRICS_TOKEN,
    JOB_WORKERS: "2",
  };
  // One after the other: the first applies the migrations (through DATABASE_DIRECT_URL) and seeds
  // the demo, its files going to the bucket; the second finds both done.
  for (let i = 0; i < 2; i++) servers.push(await startBuiltServer(machine, { databaseUrl: bouncer.through(clusters.primaryUrl) }));
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
  for (const server of servers) await server.stop();
  await bouncer?.stop();
  await s3?.close();
  clusters?.destroy();
});

/** Meta's delivery of one inbound text to the demo number, signed with the instances' app secret, posted to `server`. */
async function deliverInbound(server: BuiltServer, text: string) {
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
  const answer = await fetch(`${server.base}/webhooks/whatsapp`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hub-signature-256": sign(raw, APP_SECRET) },
    body: raw,
  });
  expect(answer.status, await answer.clone().text()).toBe(200);
  return wamid;
}

/** A browser's EventSource on /chat/events of `server`: the raw data of each `inbox` event as it arrives. */
async function openInboxStream(server: BuiltServer, cookie: string) {
  const controller = new AbortController();
  const response = await fetch(`${server.base}/chat/events?conversation=${line.conversationId}`, {
    headers: { cookie, accept: "text/event-stream" },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const events: string[] = [];
  const reader = response.body!.getReader();
  let pending = "";
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        pending += Buffer.from(value).toString("utf8");
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
      }
    } catch {
      // closed
    }
  })();
  return { events, close: () => controller.abort() };
}

/** Every file under `dir`, with its size. */
function filesUnder(dir: string): { file: string; size: number }[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile())
    .map((file) => ({ file, size: statSync(file).size }));
}

/** This instance's count of heavy reads sent to `target`, from its /metrics. */
async function replicaReads(server: BuiltServer, target: "replica" | "primary") {
  const answer = await fetch(`${server.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(answer.status).toBe(200);
  const text = await answer.text();
  return Number(new RegExp(`^jumbe_replica_reads_total\\{target="${target}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
}

describe.skipIf(!ready)("two instances on a primary with a standby, PgBouncer and S3", () => {
  it("downloads through instance B, byte for byte, a file uploaded through instance A, kept in the bucket and on neither disk", async () => {
    const [a, b] = [servers[0]!, servers[1]!];
    const cookie = await signInCookie(a, DEMO);
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
    // The composer's form, as a browser without JavaScript posts it to instance A.
    const sent = await fetch(`${a.base}/chat/${line.conversationId}`, {
      method: "POST",
      headers: { cookie, origin: a.base, accept: HTML, "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
      redirect: "manual",
    });
    expect(sent.status, await sent.clone().text()).toBe(302);
    const [reply] = await rows<{ id: string; storageKey: string; size: number }>(
      `select m.id, f.storage_key as "storageKey", f.size
         from messages m join media_files f on f.organization_id = m.organization_id and f.file_name = $3
        where m.organization_id = $1 and m.direction = 'outbound' and m.payload::text like $2`,
      [line.organizationId, `%${caption}%`, fileName],
    );
    expect(reply, "the reply and its file were stored").toBeDefined();
    expect(reply!.size).toBe(png.length);

    // Instance B, which never saw the upload, serves it to the same person.
    const cookieOnB = await signInCookie(b, DEMO);
    const download = await fetch(`${b.base}/chat/media/${reply!.id}`, { headers: { cookie: cookieOnB } });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    const downloaded = Buffer.from(await download.arrayBuffer());
    expect(createHash("sha256").update(downloaded).digest("hex")).toBe(createHash("sha256").update(png).digest("hex"));

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

  it("brings an inbound message delivered to instance A to live streams held on A and on B", async () => {
    const [a, b] = [servers[0]!, servers[1]!];
    const onA = await openInboxStream(a, await signInCookie(a, DEMO));
    const onB = await openInboxStream(b, await signInCookie(b, DEMO));
    try {
      const text = `Mnaleta mbolea Nyeri lini? ${randomBytes(4).toString("hex")}`;
      await deliverInbound(a, text);
      const heard = (events: string[]) => events.some((data) => data.includes(text));
      await until(() => heard(onB.events), "instance B's stream got the message instance A received");
      await until(() => heard(onA.events), "instance A's stream got it too");
      expect(onA.events.filter((data) => data.includes(text))).toHaveLength(onB.events.filter((data) => data.includes(text)).length);
    } finally {
      onA.close();
      onB.close();
    }
  }, 120_000);

  it("runs each webhook's job once while both instances' workers claim jobs", async () => {
    const [a, b] = [servers[0]!, servers[1]!];
    const texts = Array.from({ length: 8 }, (_, i) => `Oda ${i + 1}: magunia ${randomBytes(3).toString("hex")}`);
    // Alternately to A and B, all at once: each instance stores its deliveries and wakes its own workers.
    const wamids = await Promise.all(texts.map((text, i) => deliverInbound(i % 2 ? b : a, text)));
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

  it("reads an analytics page on the standby, through either instance", async () => {
    for (const server of servers) {
      // Only the session cookie: a sign-in's write mark would send this person's reads to the primary until the standby replays it.
      const cookie = await signInCookie(server, DEMO);
      const before = await replicaReads(server, "replica");
      // The instance measures the standby's lag on its own schedule: until it does, reads go to the primary.
      await until(async () => {
        const page = await fetch(`${server.base}/analytics`, { headers: { cookie, accept: HTML } });
        expect(page.status).toBe(200);
        await page.text();
        return (await replicaReads(server, "replica")) > before;
      }, `${server.base} read its analytics on the standby`);
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
