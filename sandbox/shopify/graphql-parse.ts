/**
 * A small GraphQL reader for the sandbox's Admin API (issue 73): the executable part of the
 * language (operations, variables with defaults, aliases, arguments as literals or variables,
 * fragments and inline fragments, directives read and `@skip`/`@include` honoured), enough that a
 * client's query is read as Shopify reads it. Errors are Shopify's (graphql-ruby's) wording:
 * `Parse error on "}" (RCURLY) at [1, 10]`, with `locations`.
 */

export type Value =
  | { kind: "variable"; name: string }
  | { kind: "int" | "float" | "string" | "enum"; value: string }
  | { kind: "boolean"; value: boolean }
  | { kind: "null" }
  | { kind: "list"; values: Value[] }
  | { kind: "object"; fields: Record<string, Value> };

export interface Directive {
  name: string;
  args: Record<string, Value>;
}

export type Selection =
  | {
      kind: "field";
      alias?: string;
      name: string;
      args: Record<string, Value>;
      directives: Directive[];
      selections?: Selection[];
      line: number;
      column: number;
    }
  | { kind: "spread"; name: string; directives: Directive[] }
  | { kind: "inline"; typeCondition?: string; directives: Directive[]; selections: Selection[] };

export interface Operation {
  type: "query" | "mutation" | "subscription";
  name?: string;
  variables: { name: string; type: string; defaultValue?: Value }[];
  selections: Selection[];
}

export interface Document {
  operations: Operation[];
  fragments: Map<string, { typeCondition: string; selections: Selection[] }>;
}

export class GraphqlSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

interface Token {
  kind: "punct" | "name" | "int" | "float" | "string" | "eof";
  value: string;
  line: number;
  column: number;
}

const PUNCT_NAMES: Record<string, string> = {
  "{": "LCURLY",
  "}": "RCURLY",
  "(": "LPAREN",
  ")": "RPAREN",
  "[": "LBRACKET",
  "]": "RBRACKET",
  ":": "COLON",
  "=": "EQUALS",
  "!": "BANG",
  $: "VAR_SIGN",
  "@": "DIR_SIGN",
  "...": "ELLIPSIS",
  "|": "PIPE",
  "&": "AMP",
};

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const at = () => ({ line, column: i - lineStart + 1 });
  while (i < source.length) {
    const c = source[i]!;
    if (c === "\n") {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r" || c === "," || c === "\ufeff") {
      i++;
      continue;
    }
    if (c === "#") {
      while (i < source.length && source[i] !== "\n") i++;
      continue;
    }
    const start = at();
    if (source.startsWith("...", i)) {
      tokens.push({ kind: "punct", value: "...", ...start });
      i += 3;
      continue;
    }
    if ("{}()[]:=!$@|&".includes(c)) {
      tokens.push({ kind: "punct", value: c, ...start });
      i++;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i))![0];
      tokens.push({ kind: "name", value: name, ...start });
      i += name.length;
      continue;
    }
    if (/[-0-9]/.test(c)) {
      const number = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(source.slice(i));
      if (!number)
        throw new GraphqlSyntaxError(`Parse error on "${c}" (error) at [${start.line}, ${start.column}]`, start.line, start.column);
      tokens.push({ kind: number[2] || number[3] ? "float" : "int", value: number[0], ...start });
      i += number[0].length;
      continue;
    }
    if (source.startsWith('"""', i)) {
      const end = source.indexOf('"""', i + 3);
      if (end < 0)
        throw new GraphqlSyntaxError(`Parse error on unterminated string at [${start.line}, ${start.column}]`, start.line, start.column);
      const raw = source.slice(i + 3, end);
      tokens.push({ kind: "string", value: blockString(raw), ...start });
      for (const ch of raw) if (ch === "\n") line++;
      i = end + 3;
      if (raw.includes("\n")) lineStart = source.lastIndexOf("\n", i) + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let value = "";
      for (;;) {
        const d = source[j];
        if (d === undefined || d === "\n")
          throw new GraphqlSyntaxError(`Parse error on unterminated string at [${start.line}, ${start.column}]`, start.line, start.column);
        if (d === '"') break;
        if (d === "\\") {
          const e = source[j + 1];
          const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
          if (e !== undefined && e in simple) {
            value += simple[e];
            j += 2;
            continue;
          }
          if (e === "u" && /^[0-9a-fA-F]{4}$/.test(source.slice(j + 2, j + 6))) {
            value += String.fromCharCode(parseInt(source.slice(j + 2, j + 6), 16));
            j += 6;
            continue;
          }
          throw new GraphqlSyntaxError(`Parse error on bad escape at [${start.line}, ${start.column}]`, start.line, start.column);
        }
        value += d;
        j++;
      }
      tokens.push({ kind: "string", value, ...start });
      i = j + 1;
      continue;
    }
    throw new GraphqlSyntaxError(`Parse error on "${c}" (error) at [${start.line}, ${start.column}]`, start.line, start.column);
  }
  tokens.push({ kind: "eof", value: "", ...at() });
  return tokens;
}

/** A block string's value: common indentation removed, blank first and last lines dropped. */
function blockString(raw: string) {
  const lines = raw.replace(/\\"""/g, '"""').split(/\r\n|\n|\r/);
  const indents = lines
    .slice(1)
    .filter((l) => l.trim())
    .map((l) => /^[ \t]*/.exec(l)![0].length);
  const common = indents.length ? Math.min(...indents) : 0;
  const out = lines.map((l, n) => (n === 0 ? l : l.slice(common)));
  while (out.length && !out[0]!.trim()) out.shift();
  while (out.length && !out.at(-1)!.trim()) out.pop();
  return out.join("\n");
}

class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek() {
    return this.tokens[this.at]!;
  }

  private unexpected(token = this.peek()): never {
    const what =
      token.kind === "eof"
        ? `end of file`
        : `"${token.value}" (${token.kind === "punct" ? PUNCT_NAMES[token.value] : token.kind === "name" ? "IDENTIFIER" : token.kind.toUpperCase()})`;
    throw new GraphqlSyntaxError(`Parse error on ${what} at [${token.line}, ${token.column}]`, token.line, token.column);
  }

  private is(value: string) {
    const t = this.peek();
    return t.kind === "punct" && t.value === value;
  }

  private expect(value: string) {
    if (!this.is(value)) this.unexpected();
    return this.tokens[this.at++]!;
  }

  private name() {
    const t = this.peek();
    if (t.kind !== "name") this.unexpected();
    this.at++;
    return t.value;
  }

  document(): Document {
    const doc: Document = { operations: [], fragments: new Map() };
    if (this.peek().kind === "eof") this.unexpected();
    while (this.peek().kind !== "eof") {
      const t = this.peek();
      if (this.is("{")) doc.operations.push({ type: "query", variables: [], selections: this.selectionSet() });
      else if (t.kind === "name" && (t.value === "query" || t.value === "mutation" || t.value === "subscription")) {
        this.at++;
        const name = this.peek().kind === "name" ? this.name() : undefined;
        const variables = this.is("(") ? this.variableDefinitions() : [];
        this.directives();
        doc.operations.push({ type: t.value, name, variables, selections: this.selectionSet() });
      } else if (t.kind === "name" && t.value === "fragment") {
        this.at++;
        const name = this.name();
        if (this.name() !== "on") this.unexpected(this.tokens[this.at - 1]);
        const typeCondition = this.name();
        this.directives();
        doc.fragments.set(name, { typeCondition, selections: this.selectionSet() });
      } else this.unexpected();
    }
    return doc;
  }

  private variableDefinitions() {
    this.expect("(");
    const out: Operation["variables"] = [];
    while (!this.is(")")) {
      this.expect("$");
      const name = this.name();
      this.expect(":");
      const type = this.type();
      const defaultValue = this.is("=") ? (this.at++, this.value(true)) : undefined;
      this.directives();
      out.push({ name, type, ...(defaultValue ? { defaultValue } : {}) });
    }
    this.expect(")");
    return out;
  }

  private type(): string {
    let type: string;
    if (this.is("[")) {
      this.at++;
      type = `[${this.type()}]`;
      this.expect("]");
    } else type = this.name();
    if (this.is("!")) {
      this.at++;
      type += "!";
    }
    return type;
  }

  private selectionSet(): Selection[] {
    this.expect("{");
    const out: Selection[] = [];
    do out.push(this.selection());
    while (!this.is("}"));
    this.expect("}");
    return out;
  }

  private selection(): Selection {
    if (this.is("...")) {
      this.at++;
      const t = this.peek();
      if (t.kind === "name" && t.value !== "on") {
        this.at++;
        return { kind: "spread", name: t.value, directives: this.directives() };
      }
      let typeCondition: string | undefined;
      if (t.kind === "name" && t.value === "on") {
        this.at++;
        typeCondition = this.name();
      }
      return { kind: "inline", typeCondition, directives: this.directives(), selections: this.selectionSet() };
    }
    const start = this.peek();
    let name = this.name();
    let alias: string | undefined;
    if (this.is(":")) {
      this.at++;
      alias = name;
      name = this.name();
    }
    const args = this.is("(") ? this.arguments(false) : {};
    const directives = this.directives();
    const selections = this.is("{") ? this.selectionSet() : undefined;
    return { kind: "field", ...(alias ? { alias } : {}), name, args, directives, selections, line: start.line, column: start.column };
  }

  private arguments(constant: boolean) {
    this.expect("(");
    const args: Record<string, Value> = {};
    do {
      const name = this.name();
      this.expect(":");
      args[name] = this.value(constant);
    } while (!this.is(")"));
    this.expect(")");
    return args;
  }

  private directives(): Directive[] {
    const out: Directive[] = [];
    while (this.is("@")) {
      this.at++;
      const name = this.name();
      out.push({ name, args: this.is("(") ? this.arguments(false) : {} });
    }
    return out;
  }

  private value(constant: boolean): Value {
    const t = this.peek();
    if (t.kind === "punct" && t.value === "$" && !constant) {
      this.at++;
      return { kind: "variable", name: this.name() };
    }
    if (t.kind === "int" || t.kind === "float" || t.kind === "string") {
      this.at++;
      return { kind: t.kind, value: t.value };
    }
    if (t.kind === "name") {
      this.at++;
      if (t.value === "true" || t.value === "false") return { kind: "boolean", value: t.value === "true" };
      if (t.value === "null") return { kind: "null" };
      return { kind: "enum", value: t.value };
    }
    if (this.is("[")) {
      this.at++;
      const values: Value[] = [];
      while (!this.is("]")) values.push(this.value(constant));
      this.at++;
      return { kind: "list", values };
    }
    if (this.is("{")) {
      this.at++;
      const fields: Record<string, Value> = {};
      while (!this.is("}")) {
        const name = this.name();
        this.expect(":");
        fields[name] = this.value(constant);
      }
      this.at++;
      return { kind: "object", fields };
    }
    return this.unexpected();
  }
}

/** Reads a GraphQL document; throws GraphqlSyntaxError with Shopify's wording. */
export function parseGraphql(source: string): Document {
  return new Parser(tokenize(source)).document();
}

/** A value with its variables filled in, as JSON (an enum as its name, a number as a number). */
export function valueOf(value: Value, variables: Record<string, unknown>): unknown {
  switch (value.kind) {
    case "variable":
      return variables[value.name] ?? null;
    case "int":
    case "float":
      return Number(value.value);
    case "string":
    case "enum":
      return value.value;
    case "boolean":
      return value.value;
    case "null":
      return null;
    case "list":
      return value.values.map((v) => valueOf(v, variables));
    case "object":
      return Object.fromEntries(Object.entries(value.fields).map(([k, v]) => [k, valueOf(v, variables)]));
  }
}

/** Whether `@skip(if:)` / `@include(if:)` leave a selection out. */
export function skipped(directives: Directive[], variables: Record<string, unknown>) {
  for (const d of directives) {
    const condition = d.args.if ? valueOf(d.args.if, variables) === true : false;
    if (d.name === "skip" && condition) return true;
    if (d.name === "include" && !condition) return true;
  }
  return false;
}

/** The variables a client defined, which the operation uses (unused ones Shopify reports as an error). */
export function variableNamesIn(selections: Selection[], fragments: Document["fragments"], seen = new Set<string>()): Set<string> {
  const names = new Set<string>();
  const walkValue = (v: Value) => {
    if (v.kind === "variable") names.add(v.name);
    else if (v.kind === "list") v.values.forEach(walkValue);
    else if (v.kind === "object") Object.values(v.fields).forEach(walkValue);
  };
  for (const s of selections) {
    for (const d of s.directives) Object.values(d.args).forEach(walkValue);
    if (s.kind === "field") {
      Object.values(s.args).forEach(walkValue);
      if (s.selections) variableNamesIn(s.selections, fragments, seen).forEach((n) => names.add(n));
    } else if (s.kind === "inline") variableNamesIn(s.selections, fragments, seen).forEach((n) => names.add(n));
    else if (!seen.has(s.name)) {
      seen.add(s.name);
      const fragment = fragments.get(s.name);
      if (fragment) variableNamesIn(fragment.selections, fragments, seen).forEach((n) => names.add(n));
    }
  }
  return names;
}
