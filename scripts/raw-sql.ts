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

class CannotRebuild extends Error {}

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

  for (const file of files) {
    const source = program.getSourceFile(path.join(root, file));
    if (!source || !/queryRows?\b|countAffected|\.execute\(/.test(source.text)) continue;
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node)) {
        const call = callName(node);
        if (call) {
          const query = call === "execute" ? node.arguments[0] : node.arguments[1];
          const where = `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
          if (query && (call !== "execute" || isSql(checker, query))) {
            try {
              const variants = rebuild(checker, query);
              const statement: Statement = { where, call, variants };
              const rowType = node.typeArguments?.[0];
              if (rowType && call !== "countAffected") statement.row = rowProperties(checker, checker.getTypeFromTypeNode(rowType));
              statements.push(statement);
            } catch (error) {
              if (!(error instanceof CannotRebuild)) throw error;
              unverifiable.push({ where, call, reason: error.message });
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
    if (method === "raw" && argument && (ts.isStringLiteral(argument) || ts.isNoSubstitutionTemplateLiteral(argument)))
      return [[argument.text]];
    if (method === "identifier" && argument && ts.isStringLiteral(argument)) return [[`"${argument.text}"`]];
    if (method === "join" && argument && ts.isArrayLiteralExpression(argument)) {
      const separator = node.arguments[1] ? fragment(checker, node.arguments[1], depth + 1) : [[""]];
      let variants: string[][] = [[]];
      argument.elements.forEach((element, i) => {
        if (i > 0) variants = product(variants, separator);
        variants = product(variants, interpolation(checker, element as ts.Expression, depth));
      });
      return variants;
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
        return fragment(checker, called.body, depth + 1);
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
): { parameters: readonly ts.ParameterDeclaration[]; body: ts.Expression } | undefined {
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  let declaration: ts.Node | undefined = symbol?.valueDeclaration;
  if (declaration && ts.isVariableDeclaration(declaration) && declaration.initializer) declaration = unwrap(declaration.initializer);
  if (!declaration || !(ts.isFunctionDeclaration(declaration) || ts.isArrowFunction(declaration) || ts.isFunctionExpression(declaration)))
    return undefined;
  if (!declaration.body || declaration.parameters.some((parameter) => !ts.isIdentifier(parameter.name) || parameter.dotDotDotToken))
    return undefined;
  if (!ts.isBlock(declaration.body)) return { parameters: declaration.parameters, body: declaration.body };
  const [only] = declaration.body.statements;
  if (declaration.body.statements.length === 1 && only && ts.isReturnStatement(only) && only.expression)
    return { parameters: declaration.parameters, body: only.expression };
  return undefined;
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
