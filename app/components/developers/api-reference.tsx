import { Link } from "~/components/ui/link";
import { Card } from "~/components/ui/card";
import { CodeBlock } from "~/components/ui/code-block";
import { Table, type Column } from "~/components/ui/table";
import { Tabs } from "~/components/ui/tabs";
import { LANGUAGE_LABELS, LANGUAGES, type Language } from "./languages";
import { m } from "~/paraglide/messages";

export interface EndpointEntry {
  operationId: string;
  method: string;
  path: string;
  summary: string;
}

// Code, not words: an error's shape and the field that names a missing permission, in every language.
const ERROR_SHAPE = "{ code, message }";
const PERMISSION_FIELD = "permission";

export type ErrorRow = { code: string; status: number; meaning: string; action?: string };

/** An endpoint's page on the Developers tab, its examples in the language chosen (curl unless another). */
export const endpointHref = (operationId: string, language: Language) =>
  `/developers/api/${operationId}${language === "curl" ? "" : `?lang=${language}`}`;

/** The HTTP method as a small tag, then the path. */
function MethodAndPath({ method, path }: { method: string; path: string }) {
  return (
    <span className="font-mono text-sm break-all">
      <span className="api-method">{method}</span>
      {path}
    </span>
  );
}

/** Tabs choosing the examples' language (`?lang=`), back at `anchor`. */
function LanguageTabs({ language, anchor }: { language: Language; anchor: string }) {
  return (
    <Tabs
      label={m.developers_examples_in()}
      items={LANGUAGES.map((l) => ({ label: LANGUAGE_LABELS[l], to: `?lang=${l}#${anchor}`, current: l === language }))}
    />
  );
}

/** Every endpoint (method, path, what it does), each a link to its page with examples (in `language`) and errors. */
export function EndpointList({ endpoints, language }: { endpoints: EndpointEntry[]; language: Language }) {
  return (
    <section className="space-y-3" aria-labelledby="endpoints-heading">
      <h2 id="endpoints-heading" className="text-lg font-semibold">
        {m.developers_endpoints_heading()}
      </h2>
      <p className="text-sm text-slate-600">
        {m.developers_endpoints_intro()}{" "}
        <Link to="/developers/errors" reloadDocument className="text-brand-700 underline">
          {m.developers_endpoints_catalogue_link()}
        </Link>
        {m.developers_endpoints_intro_after()}
      </p>
      <Card as="div" padding="none">
        <ul className="divide-y divide-slate-100">
          {endpoints.map((endpoint) => (
            <li key={endpoint.operationId} data-testid="endpoint">
              <Link to={endpointHref(endpoint.operationId, language)} className="link-row">
                <MethodAndPath method={endpoint.method} path={endpoint.path} />
                <span className="link-row-detail">{endpoint.summary}</span>
              </Link>
            </li>
          ))}
        </ul>
      </Card>
    </section>
  );
}

/** The tab's own example: sending a template message, in the chosen language, with Copy. */
export function QuickStart({ example, language }: { example: string; language: Language }) {
  return (
    <section className="space-y-3" aria-labelledby="quick-start-heading">
      <h2 id="quick-start-heading" className="text-lg font-semibold">
        {m.developers_quick_start_heading()}
      </h2>
      <LanguageTabs language={language} anchor="quick-start-heading" />
      <CodeBlock code={example} label={LANGUAGE_LABELS[language]} testId={`example-${language}`} />
    </section>
  );
}

/** One endpoint: what it does, its example in the chosen language, and each error it can answer. */
export function EndpointDetail({
  endpoint,
  language,
}: {
  endpoint: EndpointEntry & { description: string; example: string; errors: ErrorRow[] };
  language: Language;
}) {
  return (
    <div className="space-y-6">
      <p data-testid="endpoint-path">
        <MethodAndPath method={endpoint.method} path={endpoint.path} />
      </p>
      <p className="text-slate-700">{endpoint.description}</p>
      <section className="space-y-3" aria-labelledby="example-heading">
        <h2 id="example-heading" className="text-lg font-semibold">
          {m.developers_example_heading()}
        </h2>
        <LanguageTabs language={language} anchor="example-heading" />
        <CodeBlock code={endpoint.example} label={LANGUAGE_LABELS[language]} testId={`example-${language}`} />
      </section>
      <section className="space-y-3" aria-labelledby="endpoint-errors-heading">
        <h2 id="endpoint-errors-heading" className="text-lg font-semibold">
          {m.developers_endpoint_errors_heading()}
        </h2>
        <Card as="div" padding="none">
          <Table
            caption={m.developers_endpoint_errors_caption({ method: endpoint.method, path: endpoint.path })}
            columns={errorColumns(true)}
            rows={endpoint.errors}
            rowKey={(row) => row.code}
            empty={m.developers_no_error_codes()}
          />
        </Card>
      </section>
    </div>
  );
}

/** The one catalogue of the API's error codes, each with its status and what to do. */
export function ErrorCatalogue({ errors }: { errors: ErrorRow[] }) {
  return (
    <section className="space-y-4" aria-labelledby="errors-heading">
      <p className="text-sm text-slate-600">
        {m.developers_errors_intro_before()}
        <code className="font-mono">{ERROR_SHAPE}</code>
        {m.developers_errors_intro_middle()} <code className="font-mono">{PERMISSION_FIELD}</code>
        {m.developers_errors_intro_after()}
      </p>
      <Card as="div" padding="none">
        <Table
          caption={m.developers_errors_caption()}
          columns={errorColumns(false)}
          rows={errors}
          rowKey={(row) => row.code}
          empty={m.developers_no_error_codes()}
        />
      </Card>
    </section>
  );
}

/** The catalogue's columns; an endpoint's page links each code to its row in the catalogue. */
function errorColumns(linked: boolean): Column<ErrorRow>[] {
  return [
    {
      key: "code",
      header: m.developers_column_code(),
      cell: (row) =>
        linked ? (
          // A document of its own (no React there): the browser loads it and goes to the code's row.
          <Link to={`/developers/errors#error-${row.code}`} reloadDocument className="font-mono text-sm text-brand-700 underline">
            {row.code}
          </Link>
        ) : (
          <span id={`error-${row.code}`} className="font-mono text-sm">
            {row.code}
          </span>
        ),
    },
    { key: "status", header: m.developers_column_status(), cell: (row) => row.status },
    { key: "meaning", header: m.developers_column_meaning(), cell: (row) => row.meaning },
    // What to do about each is the catalogue's (an endpoint's page links there).
    ...(linked ? [] : [{ key: "action", header: m.developers_column_action(), cell: (row: ErrorRow) => row.action }]),
  ];
}
