import type { ReactNode } from "react";
import { Form } from "react-router";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import { TEMPLATE_CATEGORIES, TEMPLATE_LANGUAGES, TEMPLATE_STATUSES, templateStatusLabel } from "~/lib/templates";

const STATUS_OPTIONS = TEMPLATE_STATUSES.map((s): [string, string] => [s, templateStatusLabel(s)]);
const TYPE_OPTIONS = TEMPLATE_CATEGORIES.map((c): [string, string] => [c.value, c.label]);
const LANGUAGE_OPTIONS = TEMPLATE_LANGUAGES.map((l): [string, string] => [l.value, l.label]);

/**
 * The templates tables' filters, a GET form (search, status, type, language): the tenant's
 * /templates and the console's Templates tab. `hidden` keeps other query values (the console's
 * organisation); `children` are the form's buttons.
 */
export function TemplateFilters({
  filters,
  placeholder,
  hidden,
  children,
}: {
  filters: { q?: string; status?: string; category?: string; language?: string };
  placeholder: string;
  hidden?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Form
      method="get"
      className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-2 lg:grid-cols-5 lg:items-end"
      aria-label="Filters"
    >
      {hidden}
      <FilterInput label="Search" type="search" name="q" defaultValue={filters.q ?? ""} placeholder={placeholder} />
      <FilterSelect name="status" label="Status" value={filters.status} options={STATUS_OPTIONS} all="All statuses" />
      <FilterSelect name="type" label="Type" value={filters.category} options={TYPE_OPTIONS} all="All types" />
      <FilterSelect name="language" label="Language" value={filters.language} options={LANGUAGE_OPTIONS} all="All languages" />
      {children}
    </Form>
  );
}
