import { Form, href, Link } from "react-router";
import { Button } from "~/components/ui/button";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import { TextLink } from "~/components/ui/text-link";
import type { ContactFilterParams } from "~/lib/contact-filter";
import { OPT_IN_LABELS, SEEN_LABELS } from "./contact-table";

/** The contact book's filter: a GET form, so the filter lives in the URL. */
export function ContactFilters({ filterParams, tags }: { filterParams: ContactFilterParams; tags: string[] }) {
  return (
    <Form
      method="get"
      className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-2 lg:grid-cols-5 lg:items-end"
      aria-label="Filters"
    >
      <FilterInput label="Search" type="search" name="q" defaultValue={filterParams.q ?? ""} placeholder="Name, number or field value" />
      <FilterSelect name="tag" label="Tag" value={filterParams.tag} options={tags.map((t) => [t, t])} all="All tags" />
      <FilterSelect name="optin" label="Opt-in" value={filterParams.optin} options={Object.entries(OPT_IN_LABELS)} all="Any opt-in state" />
      <FilterSelect name="seen" label="Last seen" value={filterParams.seen} options={SEEN_LABELS} all="Any time" />
      <Button type="submit">Apply filters</Button>
    </Form>
  );
}

interface SegmentBarProps {
  segments: { id: string; name: string; query: string }[];
  filterQuery: string;
  filtered: boolean;
  canManage: boolean;
}

/** The saved segments as links, and saving the current filter as one. */
export function SegmentBar({ segments, filterQuery, filtered, canManage }: SegmentBarProps) {
  if (!segments.length && !(canManage && filtered)) return null;
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm">
      {segments.length ? <span className="font-medium text-slate-700">Segments:</span> : null}
      {segments.map((s) => (
        <Link
          key={s.id}
          to={`${href("/messaging/contacts")}?${s.query}`}
          className="rounded-full border border-slate-300 bg-white px-3 py-1 hover:bg-slate-50"
        >
          {s.name}
        </Link>
      ))}
      <TextLink to={href("/messaging/contacts/segments")} weight="semibold">
        Manage segments
      </TextLink>
      {canManage && filtered ? (
        <TextLink to={`${href("/messaging/contacts/segments")}?${filterQuery}`} weight="semibold">
          Save this filter as a segment
        </TextLink>
      ) : null}
    </div>
  );
}
