import { sql, type SQL } from "drizzle-orm";
import { queryRows } from "../db/query";
import type { Executor } from "../db/client";

/**
 * Platform-wide settings (decision 039): a row of platform_settings each, its value JSON, its
 * default when there is no row. They are read where they act, in the statement or transaction that
 * uses them, never from a copy in memory: every Jumbe instance agrees the moment one is changed.
 */
export const PLATFORM_SETTINGS = {
  /** New organisations (made by sign-up) start with their template submissions held for review. */
  holdNewOrganisationsTemplates: { key: "templates.hold_new_organisations", default: false },
} as const;

type Setting = (typeof PLATFORM_SETTINGS)[keyof typeof PLATFORM_SETTINGS];

/** The boolean setting as a SQL expression, for the statement that acts on it (an INSERT's value, a WHERE). */
export function booleanSettingSql(setting: Setting): SQL {
  return sql`coalesce((select value = 'true'::jsonb from platform_settings where key = ${setting.key}), ${setting.default})`;
}

/** The boolean setting now; `forUpdate` locks its row (when there is one) for the caller's transaction. */
export async function readBooleanSetting(executor: Executor, setting: Setting, forUpdate = false): Promise<boolean> {
  const result = await queryRows<{ on: boolean }>(
    executor,
    sql`select value = 'true'::jsonb as on from platform_settings where key = ${setting.key}${forUpdate ? sql` for update` : sql``}`,
  );
  return result[0]?.on ?? setting.default;
}

/** Stores the setting's value (the caller audits it in the same transaction). */
export async function writeBooleanSetting(executor: Executor, setting: Setting, value: boolean, userId: string) {
  await executor.execute(sql`
    insert into platform_settings (key, value, updated_at, updated_by) values (${setting.key}, ${JSON.stringify(value)}::jsonb, now(), ${userId})
    on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at, updated_by = excluded.updated_by`);
}
