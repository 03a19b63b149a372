import type { ReactNode } from "react";
import { Form } from "react-router";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import { TEMPLATE_CATEGORIES, TEMPLATE_LANGUAGES, TEMPLATE_STATUSES, templateStatusLabel } from "~/lib/templates";
import { m } from "~/paraglide/messages";

// The choices in the request's language.
const statusOptions = () => TEMPLATE_STATUSES.map((s): [string, string] => [s, templateStatusLabel(s)]);
const typeOptions = () => TEMPLATE_CATEGORIES.map((c): [string, string] => [c.value, c.label]);
const languageOptions = () => TEMPLATE_LANGUAGES.map((l): [string, string] => [l.value, l.label]);

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
      aria-label={m.templates_filters_label()}
    >
      {hidden}
      <FilterInput label={m.templates_filter_search()} type="search" name="q" defaultValue={filters.q ?? ""} placeholder={placeholder} />
      <FilterSelect
        name="status"
        label={m.templates_column_status()}
        value={filters.status}
        options={statusOptions()}
        all={m.templates_filter_all_statuses()}
      />
      <FilterSelect
        name="type"
        label={m.templates_column_type()}
        value={filters.category}
        options={typeOptions()}
        all={m.templates_filter_all_types()}
      />
      <FilterSelect
        name="language"
        label={m.templates_column_language()}
        value={filters.language}
        options={languageOptions()}
        all={m.templates_filter_all_languages()}
      />
      {children}
    </Form>
  );
}
