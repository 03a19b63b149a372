import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { createMemoryRouter, RouterProvider } from "react-router";
import type { ReactNode } from "react";
import { Badge, statusTone } from "./badge";
import { Button } from "./button";
import { BarChart, Funnel, LineChart, SeriesBarChart, SeriesTable } from "./chart";
import { changeWords, StatCard } from "./stat-card";
import { Send } from "./icons";
import { closeDialogHref, dialogHref, UrlDialog } from "./dialog";
import { CheckboxField, CheckboxGroupField, Field, FilterInput, FilterSelect, RadioGroupField, SelectField, TextareaField } from "./field";
import { ProgressBar } from "./progress-bar";
import { pageHref, Pager, pagerOrder, sortLinkHref, Table } from "./table";
import { removeRowColumn } from "./remove-row";
import { Tabs } from "./tabs";
import { ConfirmPanel } from "./confirm-panel";
import { PageTitle } from "./page-title";
import { TextLink } from "./text-link";
import { DocumentPageProvider, Link } from "./link";

/** Renders inside a router at `url`, as pages are, so links resolve. */
function render(node: ReactNode, url = "/contacts") {
  const router = createMemoryRouter([{ path: "*", element: node }], { initialEntries: [url] });
  return renderToStaticMarkup(<RouterProvider router={router} />);
}

describe("Button", () => {
  it("is disabled and busy while pending, and says what it is doing", () => {
    const html = renderToStaticMarkup(
      <Button pending pendingText="Sending...">
        Send
      </Button>,
    );
    expect(html).toMatch(/<button[^>]*disabled=""[^>]*aria-busy="true"/);
    expect(html).toContain("Sending...");
    expect(html).not.toContain(">Send<");
    expect(renderToStaticMarkup(<Button>Send</Button>)).not.toContain("aria-busy");
  });
});

describe("fields", () => {
  it("ties the label, hint and error to the control", () => {
    const html = renderToStaticMarkup(
      <Field id="phone" label="Phone number" hint="e.g. +254 712 345 678" errors={["Phone number is invalid"]} name="phone" />,
    );
    expect(html).toContain('<label for="phone"');
    expect(html).toMatch(/<input id="phone" aria-invalid="true" aria-describedby="phone-error phone-hint"/);
    expect(html).toContain('<p id="phone-error" class="field-error">Phone number is invalid</p>');
    expect(html).toContain('<p id="phone-hint"');
  });

  it("wires select, textarea and checkbox the same way", () => {
    const select = renderToStaticMarkup(
      <SelectField id="county" label="County" errors={["Pick a county"]} options={[{ value: "047", label: "Nairobi" }]} />,
    );
    expect(select).toMatch(/<select id="county" aria-invalid="true" aria-describedby="county-error"/);
    expect(select).toContain('<option value="047">Nairobi</option>');
    const textarea = renderToStaticMarkup(<TextareaField id="body" label="Message" hint="Up to 1,024 characters" />);
    expect(textarea).toMatch(/<textarea id="body" aria-describedby="body-hint"/);
    const checkbox = renderToStaticMarkup(<CheckboxField id="copy" label="Send me a copy" errors={["Required"]} />);
    expect(checkbox).toMatch(/<input type="checkbox" id="copy" aria-invalid="true" aria-describedby="copy-error"/);
    expect(checkbox).toContain('<label for="copy"');
  });

  it("groups radio buttons under a legend, one chosen, with the group's hint and error tied to the fieldset", () => {
    const html = renderToStaticMarkup(
      <RadioGroupField
        id="method"
        name="method"
        legend="Payment method"
        defaultValue="card"
        hint="How you pay"
        errors={["Choose one"]}
        options={[
          { value: "mpesa", label: "M-Pesa", description: "A prompt on your phone" },
          { value: "card", label: "Card" },
        ]}
      />,
    );
    expect(html).toMatch(/<fieldset id="method" aria-describedby="method-error method-hint"[^>]*><legend[^>]*>Payment method<\/legend>/);
    expect(html).toMatch(/<label for="method-mpesa"[^>]*><input type="radio" id="method-mpesa"[^>]* name="method" value="mpesa"\/>/);
    expect(html).toMatch(/<input type="radio" id="method-card"[^>]* name="method" checked="" value="card"\/>/);
    expect(html).toContain("A prompt on your phone");
    expect(html).toMatch(/<p id="method-error"[^>]*>Choose one<\/p>/);
  });

  it("groups checkboxes under a legend, several ticked under one name, with the group's hint and error tied to the fieldset", () => {
    const html = renderToStaticMarkup(
      <CheckboxGroupField
        id="numbers"
        name="phoneNumberIds"
        legend="Numbers it answers on"
        defaultValues={["p2"]}
        hint="None ticked: none"
        errors={["Choose your own numbers"]}
        options={[
          { value: "p1", label: "+254 700 000 001" },
          { value: "p2", label: "+254 700 000 002" },
        ]}
      />,
    );
    expect(html).toMatch(
      /<fieldset id="numbers" aria-describedby="numbers-error numbers-hint"[^>]*><legend[^>]*>Numbers it answers on<\/legend>/,
    );
    expect(html).toMatch(/<input type="checkbox" id="numbers-p1"[^>]* name="phoneNumberIds" value="p1"\/>/);
    expect(html).toMatch(/<input type="checkbox" id="numbers-p2"[^>]* name="phoneNumberIds" checked="" value="p2"\/>/);
    expect(html).toMatch(/<p id="numbers-error"[^>]*>Choose your own numbers<\/p>/);
  });

  it("labels a filter bar's select and input, with 'all' first as an empty value and the current value chosen", () => {
    const select = renderToStaticMarkup(
      <FilterSelect
        name="status"
        label="Status"
        value="approved"
        all="All statuses"
        options={[
          ["approved", "Approved"],
          ["rejected", "Rejected"],
        ]}
      />,
    );
    expect(select).toMatch(/^<label[^>]*>Status<select name="status"/);
    expect(select).toMatch(/<option value="">All statuses<\/option><option value="approved" selected="">Approved<\/option>/);
    expect(renderToStaticMarkup(<FilterSelect name="range" label="Date range" options={[["7d", "Last 7 days"]]} />)).not.toContain(
      'value=""',
    );
    const input = renderToStaticMarkup(<FilterInput label="Search" type="search" name="q" defaultValue="otp" />);
    expect(input).toMatch(/^<label[^>]*>Search<input type="search" [^>]*name="q" value="otp"/);
  });
});

describe("Table", () => {
  const rows = [
    { id: 1, name: "Wanjiku", spent: 1200 },
    { id: 2, name: "Otieno", spent: 300 },
  ];
  const columns = [
    { key: "name", header: "Name", cell: (r: (typeof rows)[number]) => r.name, sortable: true },
    { key: "spent", header: "Spent", cell: (r: (typeof rows)[number]) => `KES ${r.spent}`, align: "right" as const },
  ];

  it("links sortable headers to the next sort, marks the current one, and keeps the filters", () => {
    const params = new URLSearchParams("status=active&sort=name&dir=asc&after=42");
    expect(sortLinkHref(params, "name")).toBe("?status=active&sort=name&dir=desc");
    expect(sortLinkHref(params, "spent")).toBe("?status=active&sort=spent&dir=asc");
    const html = render(
      <Table caption="Contacts" columns={columns} rows={rows} rowKey={(r) => r.id} searchParams={params} empty="No contacts" />,
    );
    expect(html).toContain('<th scope="col" aria-sort="ascending"');
    expect(html).toContain('href="/contacts?status=active&amp;sort=name&amp;dir=desc"');
    expect(html).toContain("<td");
    expect(html).toContain("KES 1200");
    expect(html).toContain('<caption class="sr-only">Contacts</caption>');
  });

  it("shows the empty state across all columns when there are no rows", () => {
    const html = render(<Table caption="Contacts" columns={columns} rows={[]} rowKey={(r) => r.id} empty="No contacts yet." />);
    expect(html).toMatch(/<td colSpan="2"[^>]*>No contacts yet.<\/td>/i);
  });

  it("pages by cursors, not offsets, and shows a missing direction as disabled", () => {
    const params = new URLSearchParams("status=active&before=10");
    expect(pageHref(params, { after: "99" })).toBe("?status=active&after=99");
    const html = render(<Pager searchParams={params} newer={null} older="99" />);
    expect(html).toContain('href="/contacts?status=active&amp;after=99"');
    expect(html).toMatch(/<span aria-disabled="true"[^>]*>.*Newer<\/span>/);
  });

  it("says Newer and Older by default, Older and Newer oldest first, and Previous and Next when the order is not time", () => {
    const params = new URLSearchParams("sort=amount&dir=desc");
    // Each end of the pager as "rel:word" (a link) or "disabled:word", icons left out.
    const words = (html: string) =>
      [...html.replace(/<svg.*?<\/svg>/g, "").matchAll(/<(a|span) ([^>]*)>\s*(\w+)\s*<\/\1>/g)].map(
        ([, tag, attributes, word]) => `${tag === "a" ? attributes?.match(/rel="(\w+)"/)?.[1] : "disabled"}:${word}`,
      );
    const byDefault = render(<Pager searchParams={params} newer="1" older="2" label="Invoice pages" />);
    expect(byDefault).toContain('<nav aria-label="Invoice pages"');
    expect(words(byDefault)).toEqual(["prev:Newer", "next:Older"]);
    expect(words(render(<Pager searchParams={params} newer="1" older="2" order="oldest-first" />))).toEqual(["prev:Older", "next:Newer"]);
    const other = render(<Pager searchParams={params} newer={null} older="2" label="Invoice pages" order="other" />);
    expect(words(other)).toEqual(["disabled:Previous", "next:Next"]);
    expect(other).toContain('href="/contacts?sort=amount&amp;dir=desc&amp;after=2"');
    expect(other).not.toMatch(/Newer|Older/);
  });

  it("picks the pager's order from the table's sort: by time newest or oldest first, else other", () => {
    expect(pagerOrder(true, "desc")).toBe("newest-first");
    expect(pagerOrder(true, "asc")).toBe("oldest-first");
    expect(pagerOrder(false, "desc")).toBe("other");
    expect(pagerOrder(false, "asc")).toBe("other");
  });
});

describe("remove-row column", () => {
  it("gives each row its own form posting the intent and the row's value, with a named button", () => {
    const rows = [
      { key: "county", label: "County" },
      { key: "branch", label: "Branch" },
    ];
    const html = render(
      <Table
        caption="Fields"
        columns={[
          { key: "label", header: "Label", cell: (row) => row.label },
          removeRowColumn<(typeof rows)[number]>({
            intent: "remove",
            name: "key",
            value: (row) => row.key,
            label: (row) => `Remove field ${row.label}`,
          }),
        ]}
        rows={rows}
        rowKey={(row) => row.key}
        empty="None"
      />,
    );
    // Each form posts to the page itself, so it works without JavaScript.
    expect(html.match(/<form[^>]*action="\/contacts" method="post">/g)).toHaveLength(2);
    expect(html).toContain('<input type="hidden" name="key" value="branch"/>');
    expect(html).toMatch(/<button value="remove"[^>]*aria-label="Remove field County" name="intent">/);
    expect(html).toContain('<span class="sr-only">Actions</span>');
  });
});

describe("Tabs, Badge and ProgressBar", () => {
  it("marks the current tab for screen readers", () => {
    const html = render(
      <Tabs
        label="Lists"
        items={[
          { label: "All", to: "?tab=all", current: true, count: 3 },
          { label: "Replies", to: "?tab=replies" },
        ]}
      />,
    );
    expect(html).toContain('<nav aria-label="Lists"');
    expect(html).toMatch(/<a aria-current="page"[^>]*href="\/contacts\?tab=all"/);
    expect(html.match(/aria-current/g)).toHaveLength(1);
  });

  it("picks a badge's tone from its status", () => {
    expect(["Delivered", "FAILED", "in review", "scheduled", "something-new"].map(statusTone)).toEqual([
      "success",
      "danger",
      "warning",
      "warning",
      "neutral",
    ]);
    expect(renderToStaticMarkup(<Badge status="failed" />)).toContain("badge-danger");
  });

  it("reports its value to assistive technology", () => {
    const html = renderToStaticMarkup(<ProgressBar label="Messages this month" value={720} max={1000} valueText="720 of 1,000" />);
    expect(html).toMatch(/role="progressbar"[^>]*aria-valuemin="0" aria-valuemax="1000" aria-valuenow="720" aria-valuetext="720 of 1,000"/);
    expect(html).toContain("width:72%");
  });
});

describe("charts", () => {
  const week = [
    { label: "Mon", value: 1240 },
    { label: "Tue", value: 2480 },
  ];

  it("draws bars to scale and repeats the figures in a table for screen readers", () => {
    const html = renderToStaticMarkup(
      <BarChart title="Messages sent" data={week} formatValue={(v) => v.toLocaleString("en-KE")} height={140} />,
    );
    expect(html).toContain('<svg viewBox="0 0 600 140"');
    expect(html).toContain('aria-hidden="true"');
    // Tuesday is the tallest bar: the whole drawing height (140 - 12 - 28 = 100) up from the axis at
    // 112; Monday half of it. Both in one path, on whole units, as wide as 70% of their slot.
    expect(html).toContain('<path d="M52 112v-50h204v50zM344 112v-100h204v100z" class="fill-brand-600"></path>');
    expect(html).toContain('<div class="sr-only"><table><caption>Messages sent</caption>');
    expect(html).toContain('<th scope="row">Tue</th><td>2,480</td>');
  });

  it("gives several charts' figures to one table, a column each and each period once", () => {
    const errors = [{ label: "Mon", value: 0.5 }];
    const html = renderToStaticMarkup(
      <>
        <BarChart title="Messages sent" data={week} inSharedTable />
        <LineChart title="Errors (%)" data={errors} inSharedTable />
        <SeriesTable
          caption="This week"
          labelHeader="Day"
          columns={[
            { header: "Sent", data: week, formatValue: (v) => v.toLocaleString("en-KE") },
            { header: "Errors (%)", data: errors },
          ]}
        />
      </>,
    );
    // The charts draw no table of their own: one table, its periods written once.
    expect(html.match(/<table>/g)).toHaveLength(1);
    expect(html).toContain('<div class="sr-only"><table><caption>This week</caption>');
    expect(html).toContain('<th scope="col">Day</th><th scope="col">Sent</th><th scope="col">Errors (%)</th>');
    expect(html).toContain('<th scope="row">Mon</th><td>1,240</td><td>0.5</td>');
    // A period a series has no figure for.
    expect(html).toContain('<th scope="row">Tue</th><td>2,480</td><td>–</td>');
  });

  it("shows one series at a time, chosen by links that keep the page's other filters, and names it for screen readers", () => {
    const points = [
      { label: "08:00", values: { sent: 10, read: 4 } },
      { label: "09:00", values: { sent: 5, read: 8 } },
    ];
    const series = [
      { key: "sent", label: "Sent" },
      { key: "read", label: "Read", barClassName: "fill-violet-600" },
    ];
    const html = render(
      <SeriesBarChart
        title="Messages by hour"
        points={points}
        series={series}
        selected="read"
        hrefFor={(key) => `?period=7d&chart=${key}`}
      />,
    );
    expect(html).toContain('role="group" aria-label="Series shown"');
    expect(html).toMatch(
      /<a [^>]*aria-current="true"[^>]*href="\/contacts\?period=7d&amp;chart=read"|<a [^>]*href="\/contacts\?period=7d&amp;chart=read"[^>]*aria-current="true"/,
    );
    expect(html).not.toMatch(/chart=sent"[^>]*aria-current/);
    expect(html).toContain("<caption>Messages by hour: Read</caption>");
    expect(html).toContain('<th scope="col">Read</th>');
    expect(html).toContain('<th scope="row">09:00</th><td>8</td>');
    // Read's own bars: 09:00 the tallest.
    expect(html).toMatch(/<path d="[^"]*v-140h\d+v140z[^"]*" class="fill-violet-600">/);
  });

  it("says each funnel step's share of the one before in words", () => {
    const html = renderToStaticMarkup(
      <Funnel
        title="From sent to replied"
        steps={[
          { label: "Sent", value: 200 },
          { label: "Delivered", value: 180 },
          { label: "Read", value: 0 },
          { label: "Replied", value: 0 },
        ]}
      />,
    );
    expect(html).toContain('<figcaption class="sr-only">From sent to replied</figcaption>');
    expect(html).toContain("90% of sent");
    expect(html).toContain("0% of delivered");
    expect(html).toContain("No read messages to compare with");
    expect(html).toContain("width:90%");
  });

  it("draws a line through every point", () => {
    const html = renderToStaticMarkup(<LineChart title="Replies" data={week} height={140} />);
    expect(html).toContain('d="M8 62L592 12"');
  });
});

describe("URL dialog", () => {
  it("opens from the URL, keeps the other parameters, and closes by a link", () => {
    const params = new URLSearchParams("tab=all");
    expect(dialogHref(params, "archive")).toBe("?tab=all&dialog=archive");
    expect(closeDialogHref(new URLSearchParams("tab=all&dialog=archive"))).toBe("?tab=all");
    const open = render(
      <UrlDialog name="archive" searchParams={new URLSearchParams("tab=all&dialog=archive")} title="Archive this campaign?">
        <p>Its messages are kept.</p>
      </UrlDialog>,
      "/campaigns?tab=all&dialog=archive",
    );
    expect(open).toMatch(/<dialog open="" aria-labelledby="dialog-archive-title"/);
    expect(open).toContain('<h2 id="dialog-archive-title"');
    expect(open).toMatch(
      /<a[^>]*aria-label="Close"[^>]*href="\/campaigns\?tab=all"|<a[^>]*href="\/campaigns\?tab=all"[^>]*aria-label="Close"/,
    );
    const closed = render(
      <UrlDialog name="archive" searchParams={new URLSearchParams("tab=all")} title="Archive this campaign?">
        <p>Its messages are kept.</p>
      </UrlDialog>,
    );
    expect(closed).not.toContain("<dialog");
  });
});

describe("ConfirmPanel", () => {
  it("posts the intent with confirm=yes, names itself by its title, and cancels by a link", () => {
    const html = render(
      <ConfirmPanel
        title="Rotate the signing secret?"
        intent="webhook-secret-rotate"
        confirmLabel="Yes, rotate the secret"
        cancelTo="/developers"
      >
        A new secret signs every delivery from now on.
      </ConfirmPanel>,
      "/developers?confirm=rotate",
    );
    expect(html).toMatch(/<form [^>]*role="alertdialog"[^>]*aria-labelledby="[^"]+"[^>]*method="post"/);
    const id = /aria-labelledby="([^"]+)"/.exec(html)![1]!;
    expect(html).toContain(`id="${id}" class="font-semibold text-red-900">Rotate the signing secret?</p>`);
    expect(html).toContain('<input type="hidden" name="intent" value="webhook-secret-rotate"/>');
    expect(html).toContain('<input type="hidden" name="confirm" value="yes"/>');
    expect(html).toMatch(/<button[^>]*type="submit"[^>]*>Yes, rotate the secret<\/button>/);
    expect(html).toMatch(/<a [^>]*href="\/developers"[^>]*>Cancel<\/a>/);
  });
  it("carries what the action is about as hidden fields", () => {
    const html = render(
      <ConfirmPanel title="Merge?" intent="merge" confirmLabel="Yes, merge" cancelTo="/messaging/contacts" fields={{ other: "c-2" }}>
        The other is removed.
      </ConfirmPanel>,
    );
    expect(html).toContain('<input type="hidden" name="other" value="c-2"/>');
    expect(html).toContain('<input type="hidden" name="intent" value="merge"/>');
  });
});

describe("StatCard's change", () => {
  it("says the change in words, with a minus screen readers read, and colours it by whether a rise is good", () => {
    expect(changeWords({ percent: 12.5, against: "previous 7 days" })).toBe("+12.5% vs previous 7 days");
    expect(changeWords({ percent: -3, against: "previous 24 hours" })).toBe("\u22123% vs previous 24 hours");
    expect(changeWords({ percent: 0, against: "previous day" })).toBe("No change vs previous day");
    expect(changeWords({ percent: null, against: "previous day" })).toBe("No data for the previous period");
    const up = renderToStaticMarkup(
      <StatCard label="Failed" value="9" icon={Send} change={{ percent: 50, against: "previous 7 days", better: "down" }} />,
    );
    expect(up).toContain("+50% vs previous 7 days");
    expect(up).toContain("text-red-700");
    expect(up).toContain('data-change="up"');
    const none = renderToStaticMarkup(
      <StatCard label="Sent" value="0" icon={Send} change={{ percent: null, against: "previous 7 days" }} />,
    );
    expect(none).toContain("No data for the previous period");
    expect(none).toContain("text-slate-600");
  });
});

describe("PageTitle", () => {
  it("is the page's one level-1 heading, drawn as every page draws it", () => {
    expect(renderToStaticMarkup(<PageTitle>Contacts</PageTitle>)).toBe(
      '<h1 class="text-2xl font-bold tracking-tight wrap-break-word">Contacts</h1>',
    );
    expect(renderToStaticMarkup(<PageTitle id="title">Billing</PageTitle>)).toContain('id="title"');
  });
});

describe("TextLink", () => {
  it("is a brand-coloured link, underlined in a sentence or on hover when it stands alone", () => {
    expect(render(<TextLink to="/billing">Top up</TextLink>)).toContain('class="link" href="/billing"');
    expect(
      render(
        <TextLink to="/chat" weight="semibold" underline="hover">
          View all
        </TextLink>,
      ),
    ).toContain('class="font-semibold link-hover"');
  });
});

describe("Link", () => {
  const onDocumentPage = (node: ReactNode) => <DocumentPageProvider value>{node}</DocumentPageProvider>;

  it("is the router's link on a hydrated page, and the same anchor without the router's mark on a document page", () => {
    const link = (
      <Link to="/admin/templates?status=held#list" className="link" aria-label="Held templates" replace preventScrollReset>
        Held
      </Link>
    );
    const hydrated = render(link, "/admin");
    expect(hydrated).toContain('data-discover="true"');
    expect(render(onDocumentPage(link), "/admin")).toBe(hydrated.replace(' data-discover="true"', ""));
    expect(render(onDocumentPage(link), "/admin")).toBe(
      '<a class="link" aria-label="Held templates" href="/admin/templates?status=held#list">Held</a>',
    );
  });

  it("still resolves a relative path through the router on a document page", () => {
    expect(
      render(
        onDocumentPage(
          <Link to=".." relative="path">
            Back
          </Link>,
        ),
        "/admin/templates/held",
      ),
    ).toContain('href="/admin/templates"');
    expect(render(onDocumentPage(<Link to={{ pathname: "/billing", search: "?tab=invoices" }}>Invoices</Link>))).toContain(
      'href="/billing?tab=invoices"',
    );
  });
});
