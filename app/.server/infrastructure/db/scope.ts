import { sql, type SQL } from "drizzle-orm";
import { can, type Role } from "~/lib/permissions";

/**
 * Whose rows a read may return. Every tenant-owned read takes a scope: an organisation's own rows,
 * or (for the admin console) every tenant's, which only a role holding `platform:console` can get.
 * There is no third value, so a missing or empty organisation id cannot widen a read.
 */
export type OrganizationScope = { readonly kind: "organization"; readonly organizationId: string };
export type PlatformScope = { readonly kind: "platform" };
export type DataScope = OrganizationScope | PlatformScope;

export function organizationScope(current: { organization: { id: string } }): OrganizationScope {
  return { kind: "organization", organizationId: current.organization.id };
}

export class PlatformScopeRefused extends Error {
  constructor() {
    super("Only platform administrators may read across organisations");
    this.name = "PlatformScopeRefused";
  }
}

/** Every tenant's rows, for a user whose role may run the admin console; anybody else is refused. */
export function platformScope(current: { role: Role }): PlatformScope {
  if (!can(current.role, "platform:console")) throw new PlatformScopeRefused();
  return { kind: "platform" };
}

/** The condition that keeps a query inside its scope, on the given organisation id column. */
export function scopeCondition(scope: DataScope, column: SQL = sql`organization_id`): SQL | undefined {
  if (scope.kind === "platform") return undefined;
  if (!scope.organizationId) throw new Error("An organisation scope needs an organisation id");
  return sql`${column} = ${scope.organizationId}`;
}
