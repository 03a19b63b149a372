// Finds relative links in the project's markdown that point at no file. Moving or renaming a file
// then fails scripts/doc-links.test.ts instead of leaving a dead link; run this to list them.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** README.md, every document under docs/, and the READMEs of sandbox/, deploy/ and bench's results. */
export function documents() {
  const docs = readdirSync("docs", { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => path.join("docs", file));
  return ["README.md", "sandbox/README.md", "deploy/README.md", "bench/results.md", ...docs.sort()];
}

/** The targets of a document's links, outside code: inline links and reference definitions. */
export function linkTargets(markdown: string) {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
  const references = [...prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1]!);
  return [...inline, ...references];
}

const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#");

/** "file: target" for every relative link whose file does not exist. */
export function brokenLinks(files = documents()) {
  return files.flatMap((file) =>
    linkTargets(readFileSync(file, "utf8"))
      .filter((target) => !external(target))
      .filter((target) => !existsSync(path.join(path.dirname(file), decodeURI(target.split("#")[0]!))))
      .map((target) => `${file}: ${target}`),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const broken = brokenLinks();
  console.log(broken.length ? broken.join("\n") : "Every relative link resolves.");
  process.exitCode = broken.length ? 1 : 0;
}
