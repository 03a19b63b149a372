import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { parseSource, sourceFiles } from "./import-graph";

/**
 * The functions of app/.server longer than the house's limit (decision 121): every function
 * declaration, method, accessor, constructor, function expression and arrow function, measured from
 * the line it begins on to the line it ends on, nested ones counted on their own as well. One may be
 * longer when the comment lines right above the line it begins on hold `// long: <why>`.
 */
export const MOST_LINES = 100;
export const LONG_MARKER = /^\s*\/\/\s*long:\s*(\S.{9,})$/;

export interface LongFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
  /** The reason its `// long:` comment gives; null when it has none. */
  reason: string | null;
}

function nameOf(node: ts.FunctionLikeDeclaration, parent: ts.Node, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return ts.isConstructorDeclaration(node) ? "constructor" : "(anonymous)";
}

/** The `// long:` reason in the run of comment lines right above `line` (0-based), if any. */
function reasonAbove(lines: string[], line: number): string | null {
  for (let at = line - 1; at >= 0; at--) {
    const text = lines[at]!.trim();
    if (!/^(\/\/|\/\*|\*)/.test(text)) return null;
    const marker = LONG_MARKER.exec(lines[at]!);
    if (marker) return marker[1]!.trim();
  }
  return null;
}

/** Every function in `text` over `most` lines, with its reason when it has one. */
export function longFunctionsIn(file: string, text: string, most = MOST_LINES): LongFunction[] {
  const source = parseSource(file, text);
  const lines = text.split("\n");
  const found: LongFunction[] = [];
  // Parents are passed down rather than set on every node by the parser: a third of the time.
  const visit = (node: ts.Node, parent: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const start = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      const count = end - start + 1;
      if (count > most)
        found.push({ file, name: nameOf(fn, parent, source), line: start + 1, lines: count, reason: reasonAbove(lines, start) });
    }
    ts.forEachChild(node, (child) => visit(child, node));
  };
  visit(source, source);
  return found;
}

/** Every function over the limit in app/.server's source (test files left out: a test may read as one long story). */
export function longFunctions(root: string): LongFunction[] {
  return sourceFiles(root, ["app/.server"]).flatMap((file) => longFunctionsIn(file, fs.readFileSync(path.join(root, file), "utf8")));
}
