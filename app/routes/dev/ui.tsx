import { redirect, useSearchParams } from "react-router";
import { MessageSquare, Send, Users, Wallet } from "~/components/ui/icons";
import type { Route } from "./+types/ui";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardBody, CardFooter, CardHeader } from "~/components/ui/card";
import { BarChart, Funnel, LineChart, SeriesBarChart } from "~/components/ui/chart";
import { dialogHref, UrlDialog } from "~/components/ui/dialog";
import {
  CheckboxField,
  Field,
  FileField,
  FilterInput,
  FilterSelect,
  FormError,
  FormSuccess,
  SelectField,
  TextareaField,
} from "~/components/ui/field";
import { ProgressBar } from "~/components/ui/progress-bar";
import { StatCard } from "~/components/ui/stat-card";
import { Pager, Table, type Column } from "~/components/ui/table";
import { Tabs } from "~/components/ui/tabs";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { formatNumber } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";

export const meta: Route.MetaFunction = () => [{ title: "UI kit | Jumbe" }, { name: "robots", content: "noindex" }];

// The kit's gallery: in development only (npm run dev); a production build answers 404.
export function loader() {
  if (process.env.NODE_ENV === "production") throw new Response("Not Found", { status: 404 });
  return null;
}

/** The gallery's forms (the confirmation panel) post here: nothing happens but a return to the gallery. */
export function action() {
  if (process.env.NODE_ENV === "production") throw new Response("Not Found", { status: 404 });
  return redirect("/dev/ui");
}

interface Contact {
  id: number;
  name: string;
  phone: string;
  county: string;
  status: string;
  spent: number;
}

// Example rows for the gallery only: it shows how components look, never a tenant's data.
const CONTACTS: Contact[] = [
  { id: 1, name: "Wanjiku Kamau", phone: "+254 712 345 678", county: "Nairobi", status: "active", spent: 12500 },
  { id: 2, name: "Otieno Achieng", phone: "+254 723 456 789", county: "Kisumu", status: "pending", spent: 3400 },
  { id: 3, name: "Mwanajuma Hassan", phone: "+254 734 567 890", county: "Mombasa", status: "failed", spent: 0 },
  { id: 4, name: "Kiprotich Cheruiyot", phone: "+254 745 678 901", county: "Uasin Gishu", status: "delivered", spent: 8750 },
];
const WEEK = [
  { label: "Mon", value: 1240 },
  { label: "Tue", value: 1810 },
  { label: "Wed", value: 1502 },
  { label: "Thu", value: 2210 },
  { label: "Fri", value: 2645 },
  { label: "Sat", value: 980 },
  { label: "Sun", value: 610 },
];

export default function UiKit() {
  const [searchParams] = useSearchParams();
  const sortKey = searchParams.get("sort") as keyof Contact | null;
  const rows = [...CONTACTS].sort((a, b) => {
    if (!sortKey) return 0;
    const order = String(a[sortKey]).localeCompare(String(b[sortKey]), "en", { numeric: true });
    return searchParams.get("dir") === "desc" ? -order : order;
  });
  const columns: Column<Contact>[] = [
    { key: "name", header: "Name", cell: (c) => c.name, sortable: true },
    { key: "phone", header: "Phone", cell: (c) => c.phone, hideOnPhone: true },
    { key: "county", header: "County", cell: (c) => c.county, sortable: true, hideOnPhone: true },
    { key: "status", header: "Status", cell: (c) => <Badge status={c.status} /> },
    { key: "spent", header: "Spent", cell: (c) => formatKes(c.spent * 100), sortable: true, align: "right" },
  ];
  const tab = searchParams.get("tab") ?? "all";
  return (
    <main className="mx-auto max-w-5xl space-y-8 p-4 sm:p-8">
      <header>
        <h1 className="text-2xl font-bold">UI kit</h1>
        <p className="text-slate-600">Every component of app/components/ui, with example data. Development only.</p>
      </header>

      <Card>
        <CardHeader title="Buttons" description="Variants, sizes, a pending state, and links that look like buttons." />
        <CardBody className="flex flex-wrap items-center gap-3">
          <Button type="button">Primary</Button>
          <Button type="button" variant="secondary">
            Secondary
          </Button>
          <Button type="button" variant="danger">
            Danger
          </Button>
          <Button type="button" variant="ghost">
            Ghost
          </Button>
          <Button type="button" variant="link">
            Link
          </Button>
          <Button type="button" size="sm">
            Small
          </Button>
          <Button type="button" size="lg">
            Large
          </Button>
          <Button type="button" pending pendingText="Sending...">
            Send
          </Button>
          <ButtonLink to="?tab=all" variant="secondary">
            A link
          </ButtonLink>
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="Fields" description="Labels, hints and errors tied to their controls for screen readers." />
        <CardBody>
          <FormSuccess message="Contact saved" />
          <FormError errors={["Please fill in all required fields."]} />
          <div className="grid gap-x-4 sm:grid-cols-2">
            <Field label="Full name" name="name" markRequired defaultValue="Wanjiku Kamau" />
            <Field
              label="Phone number"
              name="phone"
              hint="In international form, e.g. +254 712 345 678"
              errors={["Phone number is invalid"]}
              defaultValue="0712"
            />
            <SelectField
              label="County"
              name="county"
              options={["Nairobi", "Mombasa", "Kisumu", "Nakuru"].map((c) => ({ value: c, label: c }))}
            />
            <FileField label="Contacts file" name="file" accept=".csv" hint="CSV, up to 5 MB" />
            <FilterSelect
              name="county-filter"
              label="Filter: county"
              all="All counties"
              options={["Nairobi", "Mombasa", "Kisumu"].map((c) => [c, c])}
            />
            <FilterInput label="Filter: search" type="search" name="q" placeholder="Name or phone" />
            <TextareaField
              label="Message"
              name="message"
              maxLength={1024}
              hint="Up to 1,024 characters"
              className="sm:col-span-2"
              defaultValue="Habari! Your order is ready for collection."
            />
            <CheckboxField label="Send me a copy" name="copy" hint="To the account's e-mail" />
          </div>
        </CardBody>
        <CardFooter>
          <Button type="button" variant="secondary">
            Cancel
          </Button>
          <Button type="button">Save</Button>
        </CardFooter>
      </Card>

      <section className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4" aria-label="Stat cards">
        <StatCard label="Messages Sent" value={formatNumber(10997)} icon={Send} change={{ percent: 12.5, against: "previous 7 days" }} />
        <StatCard label="Active Contacts" value={formatNumber(2431)} icon={Users} hint="Seen in the last 30 days" />
        <StatCard
          label="Replies"
          value={formatNumber(318)}
          icon={MessageSquare}
          change={{ percent: -4, against: "previous 7 days" }}
          href="?tab=replies"
        />
        <StatCard label="Balance" value={formatKes(452_000)} icon={Wallet} />
      </section>

      <Card>
        <CardHeader title="Confirmation" />
        <CardBody>
          <ConfirmPanel
            title="Delete this contact list?"
            intent="noop"
            confirmLabel="Yes, delete the list"
            cancelTo="/dev/ui"
            fields={{ list: "demo" }}
          >
            The list and its 120 contacts are removed. Messages already sent stay in the history.
          </ConfirmPanel>
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="Tabs, table and pager" />
        <CardBody className="space-y-4">
          <Tabs
            label="Contact lists"
            items={[
              { label: "All", to: "?tab=all", current: tab === "all", count: CONTACTS.length },
              { label: "Replies", to: "?tab=replies", current: tab === "replies" },
              { label: "Opted out", to: "?tab=opted-out", current: tab === "opted-out", count: 0 },
            ]}
          />
          <Table
            caption="Contacts"
            columns={columns}
            rows={tab === "all" ? rows : []}
            rowKey={(c) => c.id}
            searchParams={searchParams}
            empty="No contacts here yet."
          />
          <Pager searchParams={searchParams} newer={null} older="4" />
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="Badges and progress" />
        <CardBody className="space-y-4">
          <div className="flex flex-wrap gap-2">
            {["active", "delivered", "pending", "scheduled", "failed", "rejected", "draft", "info"].map((status) => (
              <Badge key={status} status={status} />
            ))}
            <Badge tone="brand">New</Badge>
          </div>
          <ProgressBar label="Messages this month" value={720} max={1000} valueText="720 of 1,000" />
          <ProgressBar label="Campaign sent" value={95} tone="warning" />
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="Charts" description="SVG drawn on the server, with the same figures as a table for screen readers." />
        <CardBody className="grid gap-6 sm:grid-cols-2">
          <BarChart title="Messages sent this week" data={WEEK} formatValue={formatNumber} />
          <LineChart
            title="Replies this week"
            data={WEEK.map((d) => ({ ...d, value: Math.round(d.value / 7) }))}
            formatValue={formatNumber}
          />
          <SeriesBarChart
            title="Messages this week"
            points={WEEK.map((d) => ({ label: d.label, values: { sent: d.value, read: Math.round(d.value * 0.7) } }))}
            series={[
              { key: "sent", label: "Sent" },
              { key: "read", label: "Read", barClassName: "fill-violet-600" },
            ]}
            selected={searchParams.get("series") === "read" ? "read" : "sent"}
            hrefFor={(key) => `?series=${key}`}
            formatValue={formatNumber}
          />
          <Funnel
            title="This week's messages, sent to replied"
            formatValue={formatNumber}
            steps={[
              { label: "Sent", value: 10997 },
              { label: "Delivered", value: 10512 },
              { label: "Read", value: 7730 },
              { label: "Replied", value: 1204 },
            ]}
          />
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="Dialog" description="Page state in the URL: works without JavaScript, a native modal with it." />
        <CardBody>
          <ButtonLink to={dialogHref(searchParams, "archive")} variant="danger" preventScrollReset>
            Archive campaign
          </ButtonLink>
          <UrlDialog
            name="archive"
            searchParams={searchParams}
            title="Archive this campaign?"
            description="Its messages and figures are kept; it stops sending."
          >
            <div className="flex justify-end gap-2">
              <ButtonLink to="?" variant="secondary">
                Keep it
              </ButtonLink>
              <Button type="button" variant="danger">
                Archive
              </Button>
            </div>
          </UrlDialog>
        </CardBody>
      </Card>
    </main>
  );
}
