import type { PlatformScope } from "../../infrastructure/db/scope";
import { openAlerts } from "./system/alerts";

export interface SystemAlert {
  id: string;
  level: "warning" | "error";
  text: string;
}

/**
 * What the admin console's bell shows: the open system alerts (system_alerts rows the rules raised
 * and nobody resolved yet), errors first. The rules live in system/alerts.ts; the monitor job
 * evaluates them every minute.
 */
export async function systemAlerts(_scope: PlatformScope): Promise<SystemAlert[]> {
  const open = await openAlerts(20);
  return open.map((alert) => ({ id: alert.id, level: alert.level, text: alert.title }));
}
