// The permission table is plain data, shared with the pages that hide what a role cannot use.
export * from "~/lib/permissions";
