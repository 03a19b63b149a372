import type { PGlite, QueryOptions, Results, Transaction } from "@electric-sql/pglite";
import { assertNoOpenTransaction } from "./transaction-guard";

/**
 * PGlite with each statement prepared once and then run in one call into the database (decision 041).
 *
 * PGlite's own `query` sends Parse, Describe, Bind, Describe, Execute and Sync as six separate calls
 * into its WebAssembly Postgres, and Postgres parses and plans the text again each time: about 1 ms
 * of the event loop for the session lookup. Here a statement's text is parsed once under a name,
 * with its parameter and column types read then, and each later run is Bind, Execute and Sync in a
 * single call. Postgres keeps the plan as a server-side prepared statement does: custom plans for
 * the first five runs, then a generic one where that costs no more. The values are written and the
 * rows read with the client's own serializers and parsers, by the types Postgres gave, exactly as
 * `query` does. Statements other than select, insert, update, delete, with and values (transaction
 * control, savepoints, DDL) go to PGlite's `query` unchanged.
 */
export function withPreparedStatements(client: PGlite, { max = 400 }: { max?: number } = {}): PGlite {
  const cache = new StatementCache(client, max);
  const run = (text: string, params: unknown[] | undefined, options: QueryOptions | undefined) => cache.run(text, params ?? [], options);

  const wrapTransaction = (tx: Transaction): Transaction => ({
    query: <T>(text: string, params?: unknown[], options?: QueryOptions) => {
      if (tx.closed) throw new Error("Transaction is closed");
      if (!preparable(text, options)) return tx.query<T>(text, params, options);
      return client._runExclusiveQuery(() => run(text, params, options)) as Promise<Results<T>>;
    },
    sql: tx.sql.bind(tx),
    exec: tx.exec.bind(tx),
    rollback: tx.rollback.bind(tx),
    listen: tx.listen.bind(tx),
    get closed() {
      return tx.closed;
    },
  });

  // PGlite is one connection: a statement sent around the caller's own open transaction would wait
  // for that transaction for ever (decision 043), so it is refused at once instead.
  const fast = {
    query: async <T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> => {
      assertNoOpenTransaction("A statement");
      if (!preparable(text, options)) return client.query<T>(text, params, options);
      return client._runExclusiveTransaction(() =>
        client._runExclusiveQuery(async () => {
          const result = await run(text, params, options);
          await client.syncToFs();
          return result;
        }),
      ) as Promise<Results<T>>;
    },
    transaction: async <T>(callback: (tx: Transaction) => Promise<T>) => {
      assertNoOpenTransaction("A new transaction");
      return client.transaction((tx) => callback(wrapTransaction(tx)));
    },
    exec: async (text: string, options?: QueryOptions) => {
      assertNoOpenTransaction("A statement");
      return client.exec(text, options);
    },
  };
  // Everything else (listen, close, dumpDataDir…) is the client's own.
  return new Proxy(client, {
    get(target, key) {
      if (key === "query") return fast.query;
      if (key === "transaction") return fast.transaction;
      if (key === "exec") return fast.exec;
      // Read on the client itself: its getters use private fields, which a proxy does not have.
      const value = Reflect.get(target, key) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const PREPARABLE = /^\s*(select|insert|update|delete|with|values)\b/i;
/** Statements longer than this (bulk inserts whose text grows with the rows) are parsed unnamed each time. */
const LONGEST_NAMED = 8_000;

function preparable(text: string, options: QueryOptions | undefined) {
  return !options?.blob && !options?.paramTypes && PREPARABLE.test(text);
}

interface Field {
  name: string;
  dataTypeID: number;
}

interface Statement {
  name: string;
  paramTypes: number[];
  fields: Field[];
}

interface ProtocolMessage {
  name: string;
  dataTypeIDs?: number[];
  fields?: Field[] | (string | null)[];
  text?: string;
}

class StatementCache {
  // Map order is use order: a statement used is moved to the end, the oldest is closed first.
  private readonly statements = new Map<string, Statement>();
  private toClose: string[] = [];
  private counter = 0;

  constructor(
    private readonly client: PGlite,
    private readonly max: number,
  ) {}

  /** Runs `text` with `params`; the caller holds PGlite's query lock. */
  async run(text: string, params: unknown[], options: QueryOptions | undefined): Promise<Results> {
    try {
      const statement = this.statements.get(text) ?? (await this.prepare(text));
      const values = params.map((value, i) => this.serialize(value, statement.paramTypes[i]!, options));
      const { messages } = await this.client.execProtocol(frames([bindFrame(statement.name, values), EXECUTE_FRAME, SYNC_FRAME]), {
        syncToFs: false,
      });
      return this.results(statement.fields, messages as ProtocolMessage[], options);
    } catch (error) {
      // A statement whose tables changed shape, or one Postgres no longer has, is prepared again next time.
      const code = (error as { code?: string }).code;
      if (code === "0A000" || code === "26000") this.forget(text);
      throw Object.assign(error as object, { query: text, params, queryOptions: options });
    }
  }

  private async prepare(text: string): Promise<Statement> {
    const named = text.length <= LONGEST_NAMED;
    const name = named ? `jumbe_${++this.counter}` : "";
    const closing = this.toClose.map((old) => closeFrame(old));
    this.toClose = [];
    const { messages } = await this.client.execProtocol(frames([...closing, parseFrame(name, text), describeFrame(name), SYNC_FRAME]), {
      syncToFs: false,
    });
    const found = messages as ProtocolMessage[];
    const statement: Statement = {
      name,
      paramTypes: found.find((m) => m.name === "parameterDescription")?.dataTypeIDs ?? [],
      fields: ((found.find((m) => m.name === "rowDescription")?.fields ?? []) as Field[]).map((f) => ({
        name: f.name,
        dataTypeID: f.dataTypeID,
      })),
    };
    if (named) {
      this.statements.set(text, statement);
      if (this.statements.size > this.max) {
        const [oldest] = this.statements.keys();
        this.forget(oldest!);
      }
    }
    return statement;
  }

  private forget(text: string) {
    const statement = this.statements.get(text);
    if (!statement) return;
    this.statements.delete(text);
    this.toClose.push(statement.name);
  }

  private serialize(value: unknown, type: number, options: QueryOptions | undefined): string | null {
    if (value === null || value === undefined) return null;
    const serializer = options?.serializers?.[type] ?? this.client.serializers[type];
    return serializer ? serializer(value) : String(value);
  }

  private results(fields: Field[], messages: ProtocolMessage[], options: QueryOptions | undefined): Results {
    const parsers = fields.map((f) => options?.parsers?.[f.dataTypeID] ?? this.client.parsers[f.dataTypeID]);
    const asArrays = options?.rowMode === "array";
    const rows: Results["rows"] = [];
    let result: Results = { rows, fields, affectedRows: 0 };
    for (const message of messages) {
      if (message.name === "dataRow") {
        const raw = message.fields as (string | null)[];
        if (asArrays) {
          rows.push(raw.map((value, i) => parseValue(value, fields[i]!.dataTypeID, parsers[i])));
        } else {
          const row: Record<string, unknown> = {};
          for (let i = 0; i < raw.length; i++) row[fields[i]!.name] = parseValue(raw[i]!, fields[i]!.dataTypeID, parsers[i]);
          rows.push(row);
        }
      } else if (message.name === "commandComplete") {
        // "SELECT 2", "UPDATE 3", "INSERT 0 5": the count ends the tag; only writes count as affected.
        const parts = (message.text ?? "").split(" ");
        const command = parts[0]!;
        const count = Number.parseInt(parts[parts.length - 1]!, 10);
        const writes = ["INSERT", "UPDATE", "DELETE", "COPY", "MERGE"].includes(command);
        result = { rows, fields, command, affectedRows: writes && !Number.isNaN(count) ? count : 0 };
        if (!Number.isNaN(count)) (result as Results & { rowCount?: number }).rowCount = count;
      }
    }
    return result;
  }
}

function parseValue(value: string | null, type: number, parser: ((value: string, type: number) => unknown) | undefined) {
  if (value === null) return null;
  return parser ? parser(value, type) : value;
}

// Frontend messages of Postgres's wire protocol (version 3): a type byte, the length, the body.
const SYNC_FRAME = Buffer.from([0x53, 0, 0, 0, 4]);
const EXECUTE_FRAME = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0]); // unnamed portal, every row

function frame(type: string, body: Buffer) {
  const out = Buffer.allocUnsafe(5 + body.length);
  out[0] = type.charCodeAt(0);
  out.writeInt32BE(4 + body.length, 1);
  body.copy(out, 5);
  return out;
}

const cstring = (text: string) => Buffer.from(`${text}\0`, "utf8");

function parseFrame(name: string, text: string) {
  // No parameter types given: Postgres infers them, and Describe tells them.
  return frame("P", Buffer.concat([cstring(name), cstring(text), Buffer.from([0, 0])]));
}

function describeFrame(name: string) {
  return frame("D", Buffer.concat([Buffer.from("S"), cstring(name)]));
}

function closeFrame(name: string) {
  return frame("C", Buffer.concat([Buffer.from("S"), cstring(name)]));
}

function bindFrame(statement: string, values: (string | null)[]) {
  const parts: Buffer[] = [cstring(""), cstring(statement), Buffer.from([0, 0])];
  const count = Buffer.allocUnsafe(2);
  count.writeUInt16BE(values.length); // Postgres reads the count unsigned: up to 65,535 values
  parts.push(count);
  for (const value of values) {
    const length = Buffer.allocUnsafe(4);
    if (value === null) {
      length.writeInt32BE(-1);
      parts.push(length);
      continue;
    }
    const bytes = Buffer.from(value, "utf8");
    length.writeInt32BE(bytes.length);
    parts.push(length, bytes);
  }
  parts.push(Buffer.from([0, 0])); // every column in text
  return frame("B", Buffer.concat(parts));
}

function frames(list: Buffer[]) {
  const joined = Buffer.concat(list);
  return new Uint8Array(joined.buffer, joined.byteOffset, joined.length);
}
