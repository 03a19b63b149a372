import path from "node:path";
import ts from "typescript";
import { sourceFiles } from "../tests/architecture/import-graph";

/**
 * Every raw statement in app/.server, read from the source with the compiler's type checker
 * (decision 127): each `sql` tagged template handed to queryRows, queryRow, countAffected or an
 * executor's `.execute(`, its SQL text rebuilt as drizzle sends it (a value becomes `$n`, a fragment
 * of SQL is inlined where the source says what it is), and the row type its caller declares.
 */
export type RowProperty = { name: string; kinds: Set<Kind> | "any" };
export type Kind = "string" | "number" | "boolean" | "bigint" | "Date" | "array" | "object";

export type Statement = {
  /** file:line of the call. */
  where: string;
  call: string;
  /** The SQL text of each variant (a conditional fragment gives one per branch). */
  variants: string[];
  /** The declared row's properties, when the call names a row type. */
  row?: RowProperty[];
};

export type Unverifiable = { where: string; call: string; reason: string };

const CALLS = new Set(["queryRows", "queryRow", "countAffected"]);
const MAX_VARIANTS = 16;

class CannotRebuild extends Error {
  /** When what is missing is a parameter of a function: the statement is rebuilt at that function's callers. */
  constructor(
    message: string,
    readonly parameter?: ts.ParameterDeclaration,
  ) {
    super(message);
  }
}

/** A call of a function, and its file:line. */
type Site = { call: ts.CallExpression; where: string };

/** How many functions up a statement's SQL is followed through its callers' arguments. */
const MAX_CALLER_DEPTH = 3;

/** The raw statements of the `.ts` files under `folders` of `root`, read with `root`'s tsconfig.json. */
export function rawStatements(root: string, folders = ["app/.server"]): { statements: Statement[]; unverifiable: Unverifiable[] } {
  const files = sourceFiles(root, folders).filter((file) => file.endsWith(".ts"));
  const config = ts.readConfigFile(path.join(root, "tsconfig.json"), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram({
    rootNames: files.map((file) => path.join(root, file)),
    options: { ...parsed.options, noEmit: true },
  });
  const checker = program.getTypeChecker();
  const statements: Statement[] = [];
  const unverifiable: Unverifiable[] = [];
  const sources = files.flatMap((file) => {
    const source = program.getSourceFile(path.join(root, file));
    return source ? [{ file, source }] : [];
  });
  const whereOf = (file: string, source: ts.SourceFile, node: ts.Node) =>
    `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;

  // Every call of a named function in the files read, by the function's symbol (made when first needed).
  let sitesBySymbol: Map<ts.Symbol, Site[]> | undefined;
  const sitesOf = (symbol: ts.Symbol): Site[] => {
    if (!sitesBySymbol) {
      const index = new Map<ts.Symbol, Site[]>();
      for (const { file, source } of sources) {
        const visit = (node: ts.Node) => {
          if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
            const called = resolved(checker, node.expression);
            if (called) index.set(called, [...(index.get(called) ?? []), { call: node, where: whereOf(file, source, node) }]);
          }
          ts.forEachChild(node, visit);
        };
        visit(source);
      }
      sitesBySymbol = index;
    }
    return sitesBySymbol.get(symbol) ?? [];
  };

  /** The statement with the row its call declares; a row typed by a type parameter of `through` is the one its site names. */
  const statementOf = (
    node: ts.CallExpression,
    call: string,
    query: ts.Expression,
    where: string,
    through?: [ts.SignatureDeclaration, Site],
  ) => {
    const statement: Statement = { where, call, variants: rebuild(checker, query) };
    const rowType = node.typeArguments?.[0];
    if (!rowType || call === "countAffected") return statement;
    let type = checker.getTypeFromTypeNode(rowType);
    if (type.flags & ts.TypeFlags.TypeParameter) {
      if (!through) return statement;
      const [declaration, site] = through;
      const index = declaration.typeParameters?.findIndex((parameter) => checker.getTypeAtLocation(parameter) === type) ?? -1;
      const named = index >= 0 ? site.call.typeArguments?.[index] : undefined;
      if (!named) return statement; // the type parameter's default: the caller declares no row
      type = checker.getTypeFromTypeNode(named);
    }
    statement.row = rowProperties(checker, type);
    return statement;
  };

  /**
   * A statement whose SQL is a parameter of the function it is in (or a fragment of it is), rebuilt
   * at each call of that function with the parameter read as the call's argument (and so on up to
   * MAX_CALLER_DEPTH functions): one statement per call, or an unverifiable one where the call's
   * argument cannot be read. Undefined when no call is found: the statement itself is unverifiable.
   * The helpers of infrastructure/db/query.ts are the calls themselves: nothing to read.
   */
  const throughCallers = (
    node: ts.CallExpression,
    call: string,
    query: ts.Expression,
    where: string,
    parameter: ts.ParameterDeclaration,
    depth: number,
  ): { statements: Statement[]; unverifiable: Unverifiable[] } | undefined => {
    const declaration = parameter.parent;
    if (depth >= MAX_CALLER_DEPTH || !ts.isFunctionLike(declaration)) return undefined;
    const name = functionName(declaration);
    if (!name) return undefined;
    if (depth === 0 && CALLS.has(name.text) && declaration.parameters.indexOf(parameter) === 1) return { statements: [], unverifiable: [] };
    const symbol = checker.getSymbolAtLocation(name);
    const sites = symbol ? sitesOf(symbol) : [];
    if (!sites.length) return undefined;
    const found = { statements: [] as Statement[], unverifiable: [] as Unverifiable[] };
    for (const site of sites) {
      const outer = bound;
      bound = new Map(outer);
      declaration.parameters.forEach((each, i) => {
        const symbol = ts.isIdentifier(each.name) ? checker.getSymbolAtLocation(each.name) : undefined;
        const argument = site.call.arguments[i] ?? each.initializer;
        if (symbol && argument) bound.set(symbol, argument);
      });
      try {
        found.statements.push(statementOf(node, call, query, `${site.where} (the statement at ${where})`, [declaration, site]));
      } catch (error) {
        if (!(error instanceof CannotRebuild)) throw error;
        const further =
          error.parameter && error.parameter !== parameter
            ? throughCallers(node, call, query, where, error.parameter, depth + 1)
            : undefined;
        if (further) {
          found.statements.push(...further.statements);
          found.unverifiable.push(...further.unverifiable);
        } else found.unverifiable.push({ where: site.where, call, reason: `${error.message} (the statement at ${where})` });
      } finally {
        bound = outer;
      }
    }
    return found;
  };

  for (const { file, source } of sources) {
    if (!/queryRows?\b|countAffected|\.execute\(/.test(source.text)) continue;
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node)) {
        const call = callName(node);
        if (call) {
          const query = call === "execute" ? node.arguments[0] : node.arguments[1];
          const where = whereOf(file, source, node);
          if (query && (call !== "execute" || isSql(checker, query))) {
            try {
              statements.push(statementOf(node, call, query, where));
            } catch (error) {
              if (!(error instanceof CannotRebuild)) throw error;
              const through = error.parameter && throughCallers(node, call, query, where, error.parameter, 0);
              if (!through) unverifiable.push({ where, call, reason: error.message });
              else {
                statements.push(...through.statements);
                unverifiable.push(...through.unverifiable);
              }
            }
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { statements, unverifiable };
}

/** The name a function is called by: its own, or that of the variable it is assigned to. */
function functionName(declaration: ts.SignatureDeclaration): ts.Identifier | undefined {
  if ((ts.isFunctionDeclaration(declaration) || ts.isFunctionExpression(declaration)) && declaration.name) return declaration.name;
  const parent = declaration.parent;
  if (
    (ts.isArrowFunction(declaration) || ts.isFunctionExpression(declaration)) &&
    ts.isVariableDeclaration(parent) &&
    ts.isIdentifier(parent.name)
  )
    return parent.name;
  return undefined;
}

/** The symbol an identifier names, through an import. */
function resolved(checker: ts.TypeChecker, node: ts.Identifier): ts.Symbol | undefined {
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol;
}

function callName(node: ts.CallExpression): string | null {
  const callee = node.expression;
  if (ts.isIdentifier(callee) && CALLS.has(callee.text)) return callee.text;
  if (ts.isPropertyAccessExpression(callee) && callee.name.text === "execute") return "execute";
  return null;
}

function typeName(type: ts.Type): string | undefined {
  return (type.aliasSymbol ?? type.getSymbol())?.getName();
}

/** Whether an expression is a fragment of SQL (drizzle's SQL, an aliased one, a column or a table). */
function isSql(checker: ts.TypeChecker, node: ts.Expression): boolean {
  const type = checker.getTypeAtLocation(node);
  const name = typeName(type);
  return name === "SQL" || name === "Aliased" || name === "SQLWrapper";
}

function isDrizzleThing(checker: ts.TypeChecker, node: ts.Expression): string | undefined {
  const name = typeName(checker.getTypeAtLocation(node));
  if (!name) return undefined;
  if (/^(PgColumn|Column|PgTableWithColumns|PgTable|Table|View|PgView|Subquery|Placeholder|Param|Name)$/.test(name)) return name;
  return undefined;
}

/** The SQL text of an expression that is a fragment of SQL, as each of its variants. */
function rebuild(checker: ts.TypeChecker, node: ts.Expression): string[] {
  const parts = fragment(checker, node);
  // Number the parameters of each variant as drizzle does: in the order they appear.
  return parts.map((pieces) => {
    let n = 0;
    return pieces.map((piece) => (piece === PARAM ? `$${++n}` : piece)).join("");
  });
}

const PARAM = "\u0000param";

function unwrap(node: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node) || ts.isSatisfiesExpression(node))
    node = node.expression;
  return node;
}

function product(left: string[][], right: string[][]): string[][] {
  const out: string[][] = [];
  for (const a of left) for (const b of right) out.push([...a, ...b]);
  if (out.length > MAX_VARIANTS) return out.slice(0, MAX_VARIANTS);
  return out;
}

/** A fragment's variants, each a list of text pieces and PARAM marks. */
function fragment(checker: ts.TypeChecker, raw: ts.Expression, depth = 0): string[][] {
  if (depth > 8) throw new CannotRebuild("fragments nested too deep");
  const node = unwrap(raw);
  if (ts.isTaggedTemplateExpression(node) && isSqlTag(node.tag)) {
    const template = node.template;
    if (ts.isNoSubstitutionTemplateLiteral(template)) return [[template.text]];
    let variants: string[][] = [[template.head.text]];
    for (const span of template.templateSpans) {
      variants = product(variants, interpolation(checker, span.expression, depth));
      variants = variants.map((v) => [...v, span.literal.text]);
    }
    return variants;
  }
  if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && isSqlTag(node.expression.expression)) {
    const method = node.expression.name.text;
    const argument = node.arguments[0] && unwrap(node.arguments[0]);
    if (method === "raw" && argument) return texts(checker, argument, depth + 1).map((text) => [text]);
    if (method === "identifier" && argument && ts.isStringLiteral(argument)) return [[`"${argument.text}"`]];
    const lists = method === "join" && argument ? listsOf(checker, argument) : undefined;
    if (lists) {
      const separator = node.arguments[1] ? fragment(checker, node.arguments[1], depth + 1) : [[""]];
      const out: string[][] = [];
      for (const elements of lists) {
        let variants: string[][] = [[]];
        elements.forEach((element, i) => {
          if (i > 0) variants = product(variants, separator);
          variants = product(variants, interpolation(checker, element, depth));
        });
        out.push(...variants);
      }
      return out.slice(0, MAX_VARIANTS);
    }
    if (method === "empty") return [[""]];
    if (method === "param") return [[PARAM]];
    throw new CannotRebuild(`sql.${method}(…) with arguments the source does not spell out`);
  }
  if (ts.isConditionalExpression(node)) {
    return [...fragment(checker, node.whenTrue, depth + 1), ...fragment(checker, node.whenFalse, depth + 1)].slice(0, MAX_VARIANTS);
  }
  if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
    const called = oneExpressionFunction(checker, node.expression);
    if (called && called.parameters.length >= node.arguments.length) {
      // The function's parameters stand for the call's arguments while its body is read.
      const outer = bound;
      bound = new Map(outer);
      called.parameters.forEach((parameter, i) => {
        const symbol = ts.isIdentifier(parameter.name) ? checker.getSymbolAtLocation(parameter.name) : undefined;
        const argument = node.arguments[i] ?? parameter.initializer;
        if (symbol && argument) bound.set(symbol, argument);
      });
      try {
        return called.bodies.flatMap((body) => fragment(checker, body, depth + 1)).slice(0, MAX_VARIANTS);
      } finally {
        bound = outer;
      }
    }
  }
  if (ts.isIdentifier(node)) {
    const argument = boundArgument(checker, node);
    if (argument) return fragment(checker, argument, depth + 1);
    const initializer = constInitializer(checker, node);
    if (initializer) return fragment(checker, initializer, depth + 1);
    const declaration = resolved(checker, node)?.valueDeclaration;
    if (declaration && ts.isParameter(declaration)) throw new CannotRebuild(`\`${node.text}\` is SQL passed in`, declaration);
    throw new CannotRebuild(`\`${node.text}\` is SQL built elsewhere`);
  }
  throw new CannotRebuild(`a fragment built by \`${node.getText().slice(0, 60)}\``);
}

function isSqlTag(node: ts.Node): boolean {
  return ts.isIdentifier(node) && node.text === "sql";
}

/** An interpolation in a sql template: a fragment to inline or a value sent as a parameter. */
function interpolation(checker: ts.TypeChecker, raw: ts.Expression, depth: number): string[][] {
  const node = unwrap(raw);
  if (ts.isIdentifier(node)) {
    const argument = boundArgument(checker, node);
    if (argument) return interpolation(checker, argument, depth + 1);
  }
  if (isSql(checker, node)) return fragment(checker, node, depth + 1);
  if (
    ts.isCallExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    isSqlTag(node.expression.expression) &&
    node.expression.name.text === "param"
  )
    return [[PARAM]];
  // `cond ? sql`…` : value`: each branch as what it is.
  if (ts.isConditionalExpression(node) && (isSql(checker, node.whenTrue) || isSql(checker, node.whenFalse)))
    return [...interpolation(checker, node.whenTrue, depth + 1), ...interpolation(checker, node.whenFalse, depth + 1)].slice(
      0,
      MAX_VARIANTS,
    );
  // A Param (sql.param(x), or a function answering one) is sent as one parameter, whatever its value.
  if (typeName(checker.getTypeAtLocation(node)) === "Param") return [[PARAM]];
  const drizzle = isDrizzleThing(checker, node);
  if (drizzle) throw new CannotRebuild(`a ${drizzle} interpolated (\`${node.getText().slice(0, 60)}\`)`);
  const type = checker.getTypeAtLocation(node);
  // drizzle sends an array as a list of parameters in parentheses.
  if (checker.isArrayType(type) || checker.isTupleType(type)) return [["(", PARAM, ")"]];
  if (type.isUnion() && type.types.some((t) => typeName(t) === "SQL"))
    throw new CannotRebuild(`\`${node.getText().slice(0, 60)}\` is SQL or a value`);
  return [[PARAM]];
}

/** The call's arguments by the parameters of the function being read (see fragment). */
let bound = new Map<ts.Symbol, ts.Expression>();

function boundArgument(checker: ts.TypeChecker, node: ts.Identifier): ts.Expression | undefined {
  const symbol = checker.getSymbolAtLocation(node);
  return symbol ? bound.get(symbol) : undefined;
}

/** A function that answers one expression (`(a) => sql…` or a body of one `return`): its parameters and that expression. */
function oneExpressionFunction(
  checker: ts.TypeChecker,
  node: ts.Identifier,
): { parameters: readonly ts.ParameterDeclaration[]; bodies: ts.Expression[] } | undefined {
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  let declaration: ts.Node | undefined = symbol?.valueDeclaration;
  if (declaration && ts.isVariableDeclaration(declaration) && declaration.initializer) declaration = unwrap(declaration.initializer);
  if (!declaration || !(ts.isFunctionDeclaration(declaration) || ts.isArrowFunction(declaration) || ts.isFunctionExpression(declaration)))
    return undefined;
  if (!declaration.body || declaration.parameters.some((parameter) => !ts.isIdentifier(parameter.name) || parameter.dotDotDotToken))
    return undefined;
  if (!ts.isBlock(declaration.body)) return { parameters: declaration.parameters, bodies: [declaration.body] };
  // A block ending in a return: what comes before can declare consts (read where a return uses
  // them), push onto a list (see listsOf), throw, or return early. Each return of SQL is a variant;
  // a return of nothing (`return undefined`) leaves the fragment out, which its caller checks.
  const last = declaration.body.statements.at(-1);
  if (!last || !ts.isReturnStatement(last) || !last.expression) return undefined;
  const bodies: ts.Expression[] = [];
  const collect = (node: ts.Node) => {
    if (ts.isReturnStatement(node)) {
      const value = node.expression && unwrap(node.expression);
      if (!value) return;
      if (value.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(value) && value.text === "undefined")) return;
      bodies.push(value);
    }
    if (!ts.isFunctionLike(node)) ts.forEachChild(node, collect);
  };
  ts.forEachChild(declaration.body, collect);
  return { parameters: declaration.parameters, bodies };
}

/**
 * The elements of a list handed to sql.join: an array literal, or a `const` array that is only
 * pushed onto (`parts.push(sql…)`, under whatever condition) and joined. Such a list gives two
 * variants, its first elements alone and with every element pushed, so each fragment is described.
 */
function listsOf(checker: ts.TypeChecker, raw: ts.Expression): ts.Expression[][] | undefined {
  const node = unwrap(raw);
  if (ts.isArrayLiteralExpression(node)) return node.elements.some(ts.isSpreadElement) ? undefined : [[...node.elements]];
  if (!ts.isIdentifier(node)) return undefined;
  const symbol = resolved(checker, node);
  const declaration = symbol?.valueDeclaration;
  if (!declaration || !ts.isVariableDeclaration(declaration)) return undefined;
  // Its first value, an array literal. (Not a conditional between two: a variant would pair one
  // branch with what the other branch's condition chose elsewhere in the statement.)
  const initial = constInitializer(checker, node);
  const first = initial && unwrap(initial);
  if (!first || !ts.isArrayLiteralExpression(first) || first.elements.some(ts.isSpreadElement)) return undefined;
  const initials = [[...first.elements]];
  let scope: ts.Node = declaration;
  while (scope.parent && !ts.isFunctionLike(scope) && !ts.isSourceFile(scope)) scope = scope.parent;
  const pushed: ts.Expression[] = [];
  let other = false;
  const visit = (each: ts.Node) => {
    if (ts.isIdentifier(each) && each !== declaration.name && checker.getSymbolAtLocation(each) === symbol) {
      const access = each.parent;
      const call = access?.parent;
      if (
        ts.isPropertyAccessExpression(access) &&
        access.name.text === "push" &&
        call &&
        ts.isCallExpression(call) &&
        call.expression === access
      ) {
        if (call.arguments.some(ts.isSpreadElement)) other = true;
        pushed.push(...call.arguments);
      } else if (ts.isPropertyAccessExpression(access) && access.name.text === "length") {
        // reading its length changes nothing
      } else if (!(ts.isCallExpression(access) && access.arguments[0] === each && isSqlJoin(access))) other = true;
    }
    ts.forEachChild(each, visit);
  };
  visit(scope);
  if (other) return undefined;
  return pushed.length ? initials.flatMap((initial) => [initial, [...initial, ...pushed]]) : initials;
}

function isSqlJoin(node: ts.CallExpression): boolean {
  return ts.isPropertyAccessExpression(node.expression) && isSqlTag(node.expression.expression) && node.expression.name.text === "join";
}

function constInitializer(checker: ts.TypeChecker, node: ts.Identifier): ts.Expression | undefined {
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol?.valueDeclaration;
  if (!declaration || !ts.isVariableDeclaration(declaration) || !declaration.initializer) return undefined;
  const list = declaration.parent;
  if (!ts.isVariableDeclarationList(list) || !(list.flags & ts.NodeFlags.Const)) return undefined;
  return declaration.initializer;
}

/** The declared row type's properties and the kinds of value each admits. */
function rowProperties(checker: ts.TypeChecker, type: ts.Type): RowProperty[] {
  return checker.getPropertiesOfType(type).map((property) => {
    const declaration = property.valueDeclaration ?? property.declarations?.[0];
    const propertyType = declaration ? checker.getTypeOfSymbolAtLocation(property, declaration) : checker.getDeclaredTypeOfSymbol(property);
    return { name: property.getName(), kinds: kindsOf(checker, propertyType) };
  });
}

function kindsOf(checker: ts.TypeChecker, type: ts.Type): Set<Kind> | "any" {
  const kinds = new Set<Kind>();
  for (const part of type.isUnion() ? type.types : [type]) {
    const flags = part.getFlags();
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return "any";
    if (flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.Never)) continue;
    if (flags & ts.TypeFlags.StringLike) kinds.add("string");
    else if (flags & ts.TypeFlags.NumberLike) kinds.add("number");
    else if (flags & ts.TypeFlags.BooleanLike) kinds.add("boolean");
    else if (flags & ts.TypeFlags.BigIntLike) kinds.add("bigint");
    else if (typeName(part) === "Date") kinds.add("Date");
    else if (checker.isArrayType(part) || checker.isTupleType(part)) kinds.add("array");
    else if (part.isIntersection())
      return "any"; // a branded type: not checked
    else kinds.add("object");
  }
  return kinds;
}

/**
 * A value the source spells out, for the text of `sql.raw(…)`: a string or number literal, a
 * template or `+` of such, `String(…)`, a `const` (in any file), a parameter read as its call's
 * argument, a value whose type is a union of literals (each a variant), a conditional (the branch
 * its condition decides, or both), a `const` object's property (each property when the key is not
 * known), `.replaceAll`/`.replace` with known arguments, and a call of a function whose body is
 * `const` declarations (a destructured object among them) and one `return`.
 */
type Value = string | number | boolean | null | undefined | { object: Map<string, Value[]> };

/** What the function being read has bound: its parameters and its local consts (see texts). */
let values = new Map<ts.Symbol, Value[]>();

function texts(checker: ts.TypeChecker, node: ts.Expression, depth: number): string[] {
  return evaluate(checker, node, depth).map((value) => {
    if (typeof value === "string" || typeof value === "number") return String(value);
    throw new CannotRebuild(`sql.raw(…) of \`${node.getText().slice(0, 60)}\`, not a text the source spells out`);
  });
}

function variantsOf<T>(lists: T[][]): T[][] {
  let out: T[][] = [[]];
  for (const list of lists) {
    const next: T[][] = [];
    for (const prefix of out) for (const item of list) next.push([...prefix, item]);
    out = next.slice(0, MAX_VARIANTS);
  }
  return out;
}

function evaluate(checker: ts.TypeChecker, raw: ts.Expression, depth: number): Value[] {
  if (depth > 16) throw new CannotRebuild("values nested too deep");
  const node = unwrap(raw);
  const cannot = () => new CannotRebuild(`sql.raw(…) of \`${node.getText().slice(0, 60)}\`, a text the source does not spell out`);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isNumericLiteral(node)) return [Number(node.text)];
  if (node.kind === ts.SyntaxKind.TrueKeyword) return [true];
  if (node.kind === ts.SyntaxKind.FalseKeyword) return [false];
  if (node.kind === ts.SyntaxKind.NullKeyword) return [null];
  if (ts.isTemplateExpression(node)) {
    const spans = node.templateSpans.map((span) => evaluate(checker, span.expression, depth + 1));
    return variantsOf(spans).map(
      (chosen) => node.head.text + node.templateSpans.map((span, i) => String(chosen[i]) + span.literal.text).join(""),
    );
  }
  if (ts.isBinaryExpression(node)) {
    const left = evaluate(checker, node.left, depth + 1);
    const right = evaluate(checker, node.right, depth + 1);
    const operate = (a: Value, b: Value): Value => {
      switch (node.operatorToken.kind) {
        case ts.SyntaxKind.PlusToken:
          return typeof a === "number" && typeof b === "number" ? a + b : String(a) + String(b);
        case ts.SyntaxKind.MinusToken:
          return Number(a) - Number(b);
        case ts.SyntaxKind.AsteriskToken:
          return Number(a) * Number(b);
        case ts.SyntaxKind.EqualsEqualsEqualsToken:
          return a === b;
        case ts.SyntaxKind.ExclamationEqualsEqualsToken:
          return a !== b;
        default:
          throw cannot();
      }
    };
    return variantsOf([left, right]).map(([a, b]) => operate(a, b));
  }
  if (ts.isTypeOfExpression(node))
    return evaluate(checker, node.expression, depth + 1).map((value) => (value === null ? "object" : typeof value));
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken)
    return evaluate(checker, node.operand, depth + 1).map((value) => !value);
  if (ts.isConditionalExpression(node)) {
    let conditions: Value[];
    try {
      conditions = evaluate(checker, node.condition, depth + 1);
    } catch (error) {
      if (!(error instanceof CannotRebuild)) throw error;
      conditions = [true, false];
    }
    const out: Value[] = [];
    if (conditions.some(Boolean)) out.push(...evaluate(checker, node.whenTrue, depth + 1));
    if (conditions.some((condition) => !condition)) out.push(...evaluate(checker, node.whenFalse, depth + 1));
    return out.slice(0, MAX_VARIANTS);
  }
  if (ts.isObjectLiteralExpression(node)) {
    const object = new Map<string, Value[]>();
    for (const property of node.properties) {
      if (ts.isPropertyAssignment(property) && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)))
        object.set(property.name.text, evaluate(checker, property.initializer, depth + 1));
      else if (ts.isShorthandPropertyAssignment(property)) object.set(property.name.text, evaluate(checker, property.name, depth + 1));
      else throw cannot();
    }
    return [{ object }];
  }
  if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
    const objects = evaluate(checker, node.expression, depth + 1);
    let keys: Value[] | undefined;
    if (ts.isPropertyAccessExpression(node)) keys = [node.name.text];
    else
      try {
        keys = evaluate(checker, node.argumentExpression, depth + 1);
      } catch (error) {
        if (!(error instanceof CannotRebuild)) throw error;
        keys = undefined; // any of its properties
      }
    const out: Value[] = [];
    for (const object of objects) {
      if (typeof object !== "object" || object === null) throw cannot();
      if (!keys) for (const each of object.object.values()) out.push(...each);
      else for (const key of keys) out.push(...(object.object.get(String(key)) ?? [undefined]));
    }
    return out.slice(0, MAX_VARIANTS);
  }
  if (ts.isCallExpression(node)) {
    const callee = node.expression;
    if (ts.isIdentifier(callee) && callee.text === "String" && node.arguments[0])
      return evaluate(checker, node.arguments[0], depth + 1).map(String);
    if (ts.isPropertyAccessExpression(callee) && (callee.name.text === "replaceAll" || callee.name.text === "replace")) {
      const [search, replacement] = node.arguments;
      if (!search || !replacement || !(ts.isStringLiteral(unwrap(search)) || ts.isNoSubstitutionTemplateLiteral(unwrap(search))))
        throw cannot();
      const method = callee.name.text;
      return variantsOf([
        evaluate(checker, callee.expression, depth + 1),
        evaluate(checker, search, depth + 1),
        evaluate(checker, replacement, depth + 1),
      ]).map(([text, a, b]) =>
        method === "replaceAll" ? String(text).replaceAll(String(a), String(b)) : String(text).replace(String(a), String(b)),
      );
    }
    if (ts.isIdentifier(callee)) return evaluateCall(checker, node, callee, depth, cannot);
    throw cannot();
  }
  if (ts.isIdentifier(node)) {
    if (node.text === "undefined") return [undefined];
    const symbol = resolved(checker, node);
    const known = symbol && values.get(symbol);
    if (known) return known;
    const argument = boundArgument(checker, node);
    if (argument) return evaluate(checker, argument, depth + 1);
    const initializer = constInitializer(checker, node);
    if (initializer) return evaluate(checker, initializer, depth + 1);
  }
  // A value whose type says every value it may hold.
  const type = checker.getTypeAtLocation(node);
  const literals = (type.isUnion() ? type.types : [type]).map((part) =>
    part.isStringLiteral() || part.isNumberLiteral() ? part.value : undefined,
  );
  if (literals.length && literals.length <= MAX_VARIANTS && literals.every((value) => value !== undefined)) return literals;
  throw cannot();
}

/** A call of a function whose body is `const` declarations and one `return`, its parameters bound to the call's arguments. */
function evaluateCall(
  checker: ts.TypeChecker,
  node: ts.CallExpression,
  callee: ts.Identifier,
  depth: number,
  cannot: () => CannotRebuild,
): Value[] {
  const declaration = resolved(checker, callee)?.valueDeclaration;
  let called: ts.Node | undefined = declaration;
  if (called && ts.isVariableDeclaration(called) && called.initializer) called = unwrap(called.initializer);
  if (!called || !(ts.isFunctionDeclaration(called) || ts.isArrowFunction(called) || ts.isFunctionExpression(called)) || !called.body)
    throw cannot();
  const parameters = called.parameters.map((parameter, i) => {
    const argument = node.arguments[i] ?? parameter.initializer;
    const symbol = ts.isIdentifier(parameter.name) ? checker.getSymbolAtLocation(parameter.name) : undefined;
    if (!symbol || parameter.dotDotDotToken) throw cannot();
    return [symbol, argument ? evaluate(checker, argument, depth + 1) : [undefined]] as const;
  });
  const body = called.body;
  const outer = values;
  values = new Map(outer);
  try {
    for (const [symbol, value] of parameters) values.set(symbol, value);
    if (!ts.isBlock(body)) return evaluate(checker, body, depth + 1);
    for (const statement of body.statements) {
      if (ts.isReturnStatement(statement) && statement.expression) return evaluate(checker, statement.expression, depth + 1);
      if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) throw cannot();
      for (const declared of statement.declarationList.declarations) {
        if (!declared.initializer) throw cannot();
        const value = evaluate(checker, declared.initializer, depth + 1);
        if (ts.isIdentifier(declared.name)) values.set(checker.getSymbolAtLocation(declared.name)!, value);
        else if (ts.isObjectBindingPattern(declared.name) && value.length === 1) {
          const [object] = value;
          if (typeof object !== "object" || object === null) throw cannot();
          for (const element of declared.name.elements) {
            const key = element.propertyName ?? element.name;
            if (!ts.isIdentifier(element.name) || !ts.isIdentifier(key) || element.dotDotDotToken) throw cannot();
            const given = object.object.get(key.text);
            values.set(
              checker.getSymbolAtLocation(element.name)!,
              given ?? (element.initializer ? evaluate(checker, element.initializer, depth + 1) : [undefined]),
            );
          }
        } else throw cannot();
      }
    }
    throw cannot();
  } finally {
    values = outer;
  }
}
