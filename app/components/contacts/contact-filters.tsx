import { Form, href } from "react-router";
import { Link } from "~/components/ui/link";
import { Button } from "~/components/ui/button";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import { TextLink } from "~/components/ui/text-link";
import type { ContactFilterParams } from "~/lib/contact-filter";
import { m } from "~/paraglide/messages";
import { optInLabels, seenLabels } from "./contact-table";

/** The contact book's filter: a GET form, so the filter lives in the URL. */
export function ContactFilters({
  filterParams,
  tags,
  ads,
}: {
  filterParams: ContactFilterParams;
  tags: string[];
  /** The ads that brought contacts (decision 154): the filter shows only when there is one. */
  ads: { id: string; headline: string | null }[];
}) {
  return (
    <Form
      method="get"
      className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-2 lg:grid-cols-5 lg:items-end"
      aria-label={m.messaging_filters_label()}
    >
      <FilterInput
        label={m.messaging_search()}
        type="search"
        name="q"
        defaultValue={filterParams.q ?? ""}
        placeholder={m.messaging_contacts_search_placeholder()}
      />
      <FilterSelect
        name="tag"
        label={m.messaging_contacts_filter_tag()}
        value={filterParams.tag}
        options={tags.map((t) => [t, t])}
        all={m.messaging_contacts_filter_tag_all()}
      />
      <FilterSelect
        name="optin"
        label={m.messaging_contacts_filter_optin()}
        value={filterParams.optin}
        options={Object.entries(optInLabels())}
        all={m.messaging_contacts_filter_optin_all()}
      />
      <FilterSelect
        name="seen"
        label={m.messaging_contacts_filter_seen()}
        value={filterParams.seen}
        options={seenLabels()}
        all={m.messaging_contacts_filter_seen_all()}
      />
      {ads.length || filterParams.ad ? (
        <FilterSelect
          name="ad"
          label={m.messaging_contacts_filter_ad()}
          value={filterParams.ad}
          options={[
            ["any", m.messaging_contacts_filter_ad_any()],
            ...ads.map((ad): [string, string] => [ad.id, ad.headline ? `${ad.headline} (${ad.id})` : ad.id]),
            // An ad no longer among the latest (a saved segment's) still shows as chosen.
            ...(filterParams.ad && filterParams.ad !== "any" && !ads.some((ad) => ad.id === filterParams.ad)
              ? [[filterParams.ad, filterParams.ad] as [string, string]]
              : []),
          ]}
          all={m.messaging_contacts_filter_ad_all()}
        />
      ) : null}
      <Button type="submit">{m.messaging_apply_filters()}</Button>
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
      {segments.length ? <span className="font-medium text-slate-700">{m.messaging_segments_bar_label()}</span> : null}
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
        {m.messaging_segments_manage()}
      </TextLink>
      {canManage && filtered ? (
        <TextLink to={`${href("/messaging/contacts/segments")}?${filterQuery}`} weight="semibold">
          {m.messaging_segments_save_filter_link()}
        </TextLink>
      ) : null}
    </div>
  );
}
