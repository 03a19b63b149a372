// The compiled words' types as declarations (decision 135): Paraglide writes each message as a function
// typed by a JSDoc cast in app/paraglide/messages/_index.js, which calls the same message in en.js, sw.js
// and fr.js. The TypeScript compiler, given only those, parses about 10 MB of JavaScript and checks
// every cast against the three languages' functions: about a fifth of the typecheck. Beside the
// index this writes `_index.d.ts` with the same types and doc comments and no bodies (TypeScript
// reads a declaration before the JavaScript of the same name), and `messages.d.ts` for the module
// every page imports. The application runs the JavaScript; nothing here changes what it does.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const TYPEDEF = /^\/\*\* @typedef \{(.*)\} (\w+) \*\/$/;
const EXPORT = /^export const (\w+) = \/\*\* @type \{/;

/**
 * The declarations of a compiled index's text. Throws on anything it does not know, so a Paraglide
 * that writes its index differently stops the typecheck instead of typing part of the words.
 * @param {string} source
 * @returns {{ text: string, messages: number }}
 */
export function declarationsOf(source) {
  const out = ["// Written by scripts/message-types.mjs from _index.js beside it: do not edit.", "/* eslint-disable */"];
  const lines = source.split("\n");
  let messages = 0;
  let comment = null;
  let inBody = false;
  for (const [index, line] of lines.entries()) {
    if (inBody) {
      if (line === "});") inBody = false;
      continue;
    }
    if (comment) {
      comment.push(line);
      if (line.trimEnd().endsWith("*/")) {
        out.push(...comment);
        comment = null;
      }
      continue;
    }
    const typedef = TYPEDEF.exec(line);
    if (typedef) {
      out.push(`export type ${typedef[2]} = ${typedef[1]};`);
      continue;
    }
    const declared = EXPORT.exec(line);
    if (declared) {
      const start = declared[0].length;
      const end = line.indexOf("} */ (", start);
      if (end < 0) throw new Error(`_index.js:${index + 1}: a message export without its type cast`);
      out.push(`export declare const ${declared[1]}: ${line.slice(start, end)};`);
      messages += 1;
      inBody = !line.endsWith("});");
      continue;
    }
    if (line.startsWith("/**")) {
      if (line.trimEnd().endsWith("*/")) out.push(line);
      else comment = [line];
      continue;
    }
    if (line === "" || line === "/* eslint-disable */" || /^import (\{[^}]*\}|\* as \w+) from "\.\.?\/[\w./]+"$/.test(line)) continue;
    throw new Error(`_index.js:${index + 1}: not a line scripts/message-types.mjs knows: ${line.slice(0, 80)}`);
  }
  if (comment || inBody) throw new Error("_index.js ends inside a comment or a message");
  return { text: `${out.join("\n")}\n`, messages };
}

/**
 * Writes the declarations beside the compiled words in `outdir` (app/paraglide).
 * @param {string} outdir
 * @returns {number} how many messages were declared
 */
export function writeMessageTypes(outdir) {
  const index = path.join(outdir, "messages", "_index.js");
  const { text, messages } = declarationsOf(readFileSync(index, "utf8"));
  writeFileSync(path.join(outdir, "messages", "_index.d.ts"), text);
  // messages.js only passes the index on: its declaration says the same, or the typecheck stops here.
  const exports = readFileSync(path.join(outdir, "messages.js"), "utf8")
    .split("\n")
    .filter((line) => line.startsWith("export "));
  const expected = ["export * from './messages/_index.js'", "export * as m from './messages/_index.js'"];
  if (exports.join("\n") !== expected.join("\n"))
    throw new Error(`messages.js exports what scripts/message-types.mjs does not know: ${exports.join("; ")}`);
  writeFileSync(path.join(outdir, "messages.d.ts"), `/* eslint-disable */\n${expected.map((line) => `${line};`).join("\n")}\n`);
  return messages;
}
