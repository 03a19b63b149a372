import { Card } from "~/components/ui/card";
import { CodeBlock } from "~/components/ui/code-block";
import { Table, type Column } from "~/components/ui/table";
import { Tabs } from "~/components/ui/tabs";
import { LANGUAGE_LABELS, LANGUAGES, type Language } from "./languages";

export interface EndpointDoc {
  method: string;
  path: string;
  description: string;
  example: string;
  errorCodes: string[];
}

export type ErrorRow = { code: string; status: number; meaning: string; action: string };

/** Every endpoint with its example in one language (tabs switch it) and the errors it can answer. */
export function EndpointList({ endpoints, language }: { endpoints: EndpointDoc[]; language: Language }) {
  return (
    <section className="space-y-4" aria-labelledby="endpoints-heading">
      <h2 id="endpoints-heading" className="text-lg font-semibold">
        Endpoints
      </h2>
      <Tabs
        label="Examples in"
        items={LANGUAGES.map((l) => ({ label: LANGUAGE_LABELS[l], to: `?lang=${l}#endpoints-heading`, current: l === language }))}
      />
      {endpoints.map((endpoint) => (
        <article
          key={`${endpoint.method} ${endpoint.path}`}
          className="min-w-0 rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
          data-testid="endpoint"
        >
          <p className="font-mono text-sm break-all">
            <span className="mr-2 rounded bg-brand-100 px-2 py-0.5 font-semibold text-brand-900">{endpoint.method}</span>
            {endpoint.path}
          </p>
          <p className="mt-2 text-sm text-slate-600">{endpoint.description}</p>
          <div className="mt-3">
            <CodeBlock code={endpoint.example} label={LANGUAGE_LABELS[language]} testId={`example-${language}`} />
          </div>
          <p className="mt-3 text-sm text-slate-600" data-testid="endpoint-errors">
            <span className="font-medium text-slate-900">Errors it can answer: </span>
            {endpoint.errorCodes.map((code, i) => (
              <span key={code}>
                {i ? ", " : ""}
                <a href={`#error-${code}`} className="font-mono text-brand-700 underline-offset-2 hover:underline">
                  {code}
                </a>
              </span>
            ))}
          </p>
        </article>
      ))}
    </section>
  );
}

/** The one catalogue of the API's error codes, each with its status and what to do. */
export function ErrorCatalogue({ errors }: { errors: ErrorRow[] }) {
  return (
    <section className="space-y-4" aria-labelledby="errors-heading">
      <h2 id="errors-heading" className="text-lg font-semibold">
        Errors
      </h2>
      <p className="text-sm text-slate-600">
        Every error answers <code className="font-mono">{"{ code, message }"}</code> with one of these codes, always with the same HTTP
        status. The message says what went wrong in words; a refusal for a missing permission also names it in{" "}
        <code className="font-mono">permission</code>.
      </p>
      <Card as="div" padding="none">
        <Table caption="Error codes of the API" columns={ERROR_COLUMNS} rows={errors} rowKey={(row) => row.code} empty="No error codes." />
      </Card>
    </section>
  );
}

const ERROR_COLUMNS: Column<ErrorRow>[] = [
  {
    key: "code",
    header: "Code",
    cell: (row) => (
      <span id={`error-${row.code}`} className="font-mono text-sm">
        {row.code}
      </span>
    ),
  },
  { key: "status", header: "HTTP status", cell: (row) => row.status },
  { key: "meaning", header: "What it means", cell: (row) => row.meaning },
  { key: "action", header: "What to do", cell: (row) => row.action },
];
