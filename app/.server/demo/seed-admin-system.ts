import { sql } from "drizzle-orm";
import { db } from "../infrastructure/db/client";
import { queryRows } from "../infrastructure/db/query";

const WEB_1 = "jumbe-web-1:2104:5e1a9c";
const WEB_2 = "jumbe-web-2:2231:8b07f4";

/**
 * The System tab's demo history (issue 19): a week of metric samples every half hour (a light seed) for two
 * instances (jumbe-web-2 retired two days ago) and the platform, shaped by Nairobi's working day,
 * and three alerts from that week, resolved: one by its rule, two by the administrator (with the
 * audit log's records). The running server adds its own heartbeat and samples every minute.
 */
export async function seedAdminSystem(adminEmail: string) {
  await db().execute(sql`
    with t as (
      select at, extract(epoch from at) as e,
             extract(hour from at at time zone 'Africa/Nairobi') + extract(minute from at at time zone 'Africa/Nairobi') / 60.0 as hr
      from generate_series(date_trunc('minute', now()) - interval '7 days', now() - interval '30 minutes', interval '30 minutes') as at
    ), load as (
      select at, e, case when hr between 6 and 22 then greatest(0.05, sin(pi() * (hr - 6) / 16)) else 0.05 end as busy from t
    )
    insert into metric_samples (name, instance_id, at, value)
    select m.name, m.instance_id, load.at, greatest(0, m.value) from load cross join lateral (values
      ('http_requests', ${WEB_1}, round(30 + 620 * busy + 25 * sin(e / 700))),
      ('http_5xx', ${WEB_1}, case when sin(e / 3100) > 0.97 then 2 else 0 end),
      ('cpu_percent', ${WEB_1}, round((6 + 38 * busy + 3 * sin(e / 900))::numeric, 1)),
      ('rss_bytes', ${WEB_1}, (210 + 45 * busy + 6 * sin(e / 5000)) * 1048576),
      ('heap_used_bytes', ${WEB_1}, (95 + 30 * busy + 5 * sin(e / 4000)) * 1048576),
      ('event_loop_p99_ms', ${WEB_1}, round((11 + 14 * busy + 2 * sin(e / 1300))::numeric, 1)),
      ('http_requests', ${WEB_2}, round(25 + 540 * busy + 25 * cos(e / 800))),
      ('http_5xx', ${WEB_2}, case when cos(e / 2900) > 0.98 then 1 else 0 end),
      ('cpu_percent', ${WEB_2}, round((5 + 33 * busy + 3 * cos(e / 1000))::numeric, 1)),
      ('rss_bytes', ${WEB_2}, (196 + 40 * busy + 6 * cos(e / 5200)) * 1048576),
      ('heap_used_bytes', ${WEB_2}, (88 + 27 * busy + 5 * cos(e / 4100)) * 1048576),
      ('event_loop_p99_ms', ${WEB_2}, round((10 + 12 * busy + 2 * cos(e / 1500))::numeric, 1)),
      ('jobs_ready', '', round(2 + 14 * busy * (0.6 + 0.4 * sin(e / 600)))),
      ('jobs_oldest_ready_s', '', round(1 + 9 * busy * (0.5 + 0.5 * sin(e / 650)))),
      ('webhooks_received', '', round(8 + 140 * busy + 10 * sin(e / 450))),
      ('webhooks_backlog', '', round(3 * busy * (0.5 + 0.5 * sin(e / 500)))),
      ('webhooks_lag_s', '', round(2 * busy * (0.5 + 0.5 * cos(e / 520)))),
      ('error_rate_percent', '', 0)
    ) as m(name, instance_id, value)
    where not (m.instance_id = ${WEB_2} and load.at > now() - interval '2 days')
    on conflict do nothing`);

  const [admin] = await queryRows<{ id: string; email: string }>(db(), sql`select id, email from users where email = ${adminEmail}`);
  if (!admin) return;
  const alerts = [
    {
      rule: "webhook_backlog",
      key: "",
      level: "error",
      title: "214 webhook deliveries have waited over 5 minutes",
      details: "The oldest unprocessed delivery arrived 11 minutes ago. Deliveries are stored on arrival and processed by the job workers.",
      openedDaysAgo: 5,
      minutes: 23,
      resolution: "Restarted the job workers on jumbe-web-1 after the PostgreSQL failover; the backlog drained in four minutes.",
    },
    {
      rule: "queue_lag",
      key: "notifications.mail",
      level: "warning",
      title: "The notifications.mail queue's oldest ready job has waited 4 minutes",
      details: "38 jobs are ready in notifications.mail; the alert opens past 120 seconds. Are the workers running (JOB_WORKERS above 0)?",
      openedDaysAgo: 3,
      minutes: 7,
      resolution: null,
    },
    {
      rule: "instance_missing",
      key: WEB_2,
      level: "error",
      title: "Instance jumbe-web-2 (process 2231) has sent no heartbeat for 2 minutes",
      details: `Instance ${WEB_2} last wrote its heartbeat 2 minutes ago; it beats every 15 seconds. If it was retired on purpose, resolve this alert to forget it.`,
      openedDaysAgo: 2,
      minutes: 15,
      resolution: "Retired jumbe-web-2: its traffic moved to jumbe-web-1 with the Mombasa Road data-centre move.",
    },
  ];
  for (const a of alerts) {
    const [row] = await queryRows<{ id: string }>(
      db(),
      sql`
      insert into system_alerts (rule, key, level, title, details, opened_at, last_seen_at, resolved_at, resolved_by, resolution)
      values (${a.rule}, ${a.key}, ${a.level}, ${a.title}, ${a.details},
              now() - make_interval(days => ${a.openedDaysAgo}),
              now() - make_interval(days => ${a.openedDaysAgo}) + make_interval(mins => ${a.minutes - 1}),
              now() - make_interval(days => ${a.openedDaysAgo}) + make_interval(mins => ${a.minutes}),
              ${a.resolution ? admin.id : null}, ${a.resolution ?? "The condition cleared."})
      returning id`,
    );
    if (a.resolution)
      await db().execute(sql`
        insert into admin_audit_log (admin_id, admin_email, action, target_type, target_id, reason, before, after, ip_address, user_agent, created_at)
        values (${admin.id}, ${admin.email}, 'alert.resolve', 'alert', ${row!.id}, ${a.resolution},
                ${JSON.stringify({ status: "open", rule: a.rule, title: a.title })}::jsonb, ${JSON.stringify({ status: "resolved" })}::jsonb,
                '197.248.16.40', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0',
                now() - make_interval(days => ${a.openedDaysAgo}) + make_interval(mins => ${a.minutes}))`);
  }
}
