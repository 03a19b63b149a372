import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * The project's import graph, read from the source as the compiler parses it: every static import and
 * re-export, and every `import("…")` with a literal path. Test files are left out (a test may reach
 * anywhere); type-only imports are kept, marked, because a layer that names another layer's types
 * still depends on it.
 */
export type ImportEdge = { from: string; to: string; typeOnly: boolean };

const SOURCE = /\.(ts|tsx)$/;
const TEST = /\.test\.(ts|tsx)$/;
const EXTENSIONS = ["", ".ts", ".tsx", "/index.ts", "/index.tsx"];

export function sourceFiles(root: string, folders: string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (SOURCE.test(entry.name) && !TEST.test(entry.name)) found.push(rel);
    }
  };
  for (const folder of folders) walk(folder);
  return found.sort();
}

function resolveSpecifier(root: string, from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith("~/")) base = path.posix.join("app", specifier.slice(2));
  else if (specifier.startsWith(".")) base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  else return null; // a package
  for (const extension of EXTENSIONS) {
    const candidate = base + extension;
    if (fs.existsSync(path.join(root, candidate)) && fs.statSync(path.join(root, candidate)).isFile()) return candidate;
  }
  return null;
}

function importsOf(source: ts.SourceFile): { specifier: string; typeOnly: boolean }[] {
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A TypeScript or TSX file's syntax tree (no parents set, no type information). */
export function parseSource(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

export function importGraph(root: string, folders: string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(root, folders)) {
    const text = fs.readFileSync(path.join(root, file), "utf8");
    const source = parseSource(file, text);
    for (const { specifier, typeOnly } of importsOf(source)) {
      const to = resolveSpecifier(root, file, specifier);
      if (to) edges.push({ from: file, to, typeOnly });
    }
  }
  return edges;
}

/** Strongly connected groups of more than one file (Tarjan), each sorted, biggest first. */
export function importCircles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, []);
    next.get(from)!.push(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let counter = 0;
  const connect = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) circles.push(group.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) connect(node);
  return circles.sort((a, b) => b.length - a.length);
}
