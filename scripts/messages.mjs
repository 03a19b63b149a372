// The product's words (app/messages/{en,sw,fr}.json) compiled by Paraglide JS into typed functions in
// app/paraglide/ (generated, not committed; decision 071). The Vite plugin (scripts/messages-plugin.ts)
// compiles them for `npm run dev` and `react-router build`; `npm run messages` (run by `npm test`, the
// typecheck and the test runner's configuration) for everything that starts without Vite's plugins.
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * Paraglide's options, one place for the Vite plugin and the command.
 * @type {import("@inlang/paraglide-js").CompilerOptions}
 */
export const MESSAGES = {
  project: "./project.inlang",
  outdir: "./app/paraglide",
  // The locale is the request's (app/.server/infrastructure/http/locale.ts) on the server, and the
  // document's lang in the browser: Paraglide's own detection (URL, cookie, storage) is left out.
  strategy: ["baseLocale"],
  disableAsyncLocalStorage: true,
  emitGitIgnore: true,
  emitPrettierIgnore: true,
  emitReadme: false,
  includeEslintDisableComment: true,
  // One module a language, not one a message (decision 118): the server's build, the development
  // server, the test runner and the typecheck each read four files instead of thousands. The browser
  // never loads them: its build looks each message up by key (decision 072).
  outputStructure: "locale-modules",
};

/**
 * Compiles the words into `outdir` with Paraglide's own compiler (`compileProject`), given the
 * messages as the inlang project's plugin reads them, without the inlang SDK's database (decision
 * 132). Paraglide's `compile()` first loads every message, variant and pattern into a SQLite
 * database (WebAssembly) only to read them back in order: about 14 of its 16 CPU-seconds, on every
 * build, development start and test run. Here the plugin's `importFiles` gives the same bundles,
 * messages and variants, in the order the database gives them back (bundles by id, each bundle's
 * messages and variants in the order imported, as their time-ordered ids sort), and Paraglide
 * writes the same files byte for byte (scripts/messages.test.ts compares both compilers). A
 * project the fast path cannot read as a fresh import would be (two files giving the same message,
 * more than one plugin) goes to Paraglide's `compile()`.
 *
 * Only files whose text changed are written: the development server reloads only what an edit
 * changed. With `clean` (the command), the folder's other files are removed first, as Paraglide's
 * `cleanOutdir` did; the Vite plugin leaves them (the typecheck's declarations, decision 135).
 *
 * @param {import("@inlang/paraglide-js").CompilerOptions} options
 * @param {{ clean?: boolean }} [how]
 * @returns {Promise<{ inputs: string[] }>} the files read (settings and message files, absolute), which an edit of recompiles
 */
export async function compileMessages(options, how = {}) {
  const clean = how.clean ?? false;
  const paraglide = await import("@inlang/paraglide-js");
  const compilerOptions = { ...paraglide.defaultCompilerOptions, ...options, cleanOutdir: false };
  const imported = await importedBundles(options.project);
  if (!imported.rows) {
    await paraglide.compile({ ...compilerOptions, cleanOutdir: clean });
    return { inputs: imported.inputs };
  }
  const output = await paraglide.compileProject({
    compilerOptions,
    // Only what compileProject reads of a loaded project: its settings, and its bundles through the
    // SDK's selectBundleNested (one ordered left join of bundle, message and variant).
    project: /** @type {any} */ ({ settings: { get: async () => imported.settings }, db: joinedRows(imported.rows) }),
    projectPath: options.project,
  });
  await writeChanged(path.resolve(process.cwd(), options.outdir), output, clean);
  return { inputs: imported.inputs };
}

/**
 * Writes each file whose text differs from what is there; with `clean`, removes the folder's other files.
 * @param {string} directory
 * @param {Record<string, string>} output
 * @param {boolean} clean
 */
async function writeChanged(directory, output, clean) {
  const existing = clean ? await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []) : [];
  const wanted = new Set(Object.keys(output).map((file) => path.resolve(directory, file)));
  for (const entry of existing) {
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    if (entry.isFile() && !wanted.has(file)) await rm(file, { force: true });
  }
  for (const [file, text] of Object.entries(output)) {
    const target = path.resolve(directory, file);
    if ((await readFile(target, "utf8").catch(() => null)) === text) continue;
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text);
  }
}

/**
 * The files the project's one import plugin reads (the inlang SDK's loadProjectFromDirectory: each
 * path pattern, each locale, a missing file skipped), and the rows the SDK's database would give
 * back after importing them into an empty project (rows null when that import would not be the
 * SDK's batch import of a fresh project), and the files it read.
 * @param {string} project
 */
export async function importedBundles(project) {
  const projectPath = path.resolve(process.cwd(), project);
  const settingsFile = path.join(projectPath, "settings.json");
  /** @type {string[]} */
  const inputs = [settingsFile];
  const settings = JSON.parse(await readFile(settingsFile, "utf8"));
  const fromProject = (/** @type {string} */ file) => path.resolve(path.dirname(projectPath), file);
  if (!Array.isArray(settings.modules) || settings.modules.length !== 1) return { settings, inputs, rows: null };
  const plugin = (await import(pathToFileURL(fromProject(settings.modules[0])).href)).default;
  // (The SDK's own rule: a plugin with importFiles and exportFiles is read through them, not its legacy loadMessages.)
  if (!plugin?.importFiles || !plugin.exportFiles || !plugin.toBeImportedFiles) return { settings, inputs, rows: null };
  const files = [];
  for (const { path: file, locale, metadata } of await plugin.toBeImportedFiles({ settings })) {
    inputs.push(fromProject(file));
    const content = await readFile(fromProject(file)).catch((error) => {
      if (error?.code === "ENOENT") return null;
      throw error;
    });
    if (content) files.push({ locale, content, toBeImportedFilesMetadata: metadata });
  }
  const { bundles, messages, variants } = await plugin.importFiles({ files, settings: structuredClone(settings) });
  const key = (/** @type {string} */ bundleId, /** @type {string} */ locale) => JSON.stringify([bundleId, locale]);
  const bundleIds = new Set(bundles.map((/** @type {{ id: string }} */ bundle) => bundle.id));
  const messageKeys = new Set(messages.map((/** @type {{ bundleId: string, locale: string }} */ m) => key(m.bundleId, m.locale)));
  const variantKeys = new Set(variants.map((/** @type {any} */ v) => JSON.stringify([v.messageBundleId, v.messageLocale, v.matches])));
  const fresh =
    bundleIds.size === bundles.length &&
    messageKeys.size === messages.length &&
    variantKeys.size === variants.length &&
    messages.every((/** @type {any} */ m) => m.id === undefined && bundleIds.has(m.bundleId)) &&
    variants.every(
      (/** @type {any} */ v) => v.id === undefined && v.messageId === undefined && messageKeys.has(key(v.messageBundleId, v.messageLocale)),
    );
  if (!fresh) return { settings, inputs, rows: null };
  // Stored as JSON and read back: what the database returns has no undefined members.
  const json = (/** @type {unknown} */ value) => (value === undefined ? null : JSON.parse(JSON.stringify(value)));
  const messageIndex = new Map(messages.map((/** @type {any} */ m, /** @type {number} */ i) => [key(m.bundleId, m.locale), i]));
  const variantsOf = groupBy(variants, (/** @type {any} */ v) => messageIndex.get(key(v.messageBundleId, v.messageLocale)));
  const messagesOf = groupBy(
    messages.map((/** @type {any} */ m, /** @type {number} */ i) => ({ ...m, index: i })),
    (/** @type {{ bundleId: string }} */ m) => m.bundleId,
  );
  const rows = [];
  for (const bundle of [...bundles].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const bundleRow = { bundleId: bundle.id, bundleDeclarations: json(bundle.declarations ?? []) };
    const own = messagesOf.get(bundle.id) ?? [];
    if (!own.length)
      rows.push({
        ...bundleRow,
        messageId: null,
        messageLocale: null,
        messageSelectors: null,
        variantId: null,
        variantMatches: null,
        variantPattern: null,
      });
    for (const message of own) {
      const messageRow = {
        ...bundleRow,
        messageId: `m${message.index}`,
        messageLocale: message.locale,
        messageSelectors: json(message.selectors ?? []),
      };
      const its = variantsOf.get(message.index) ?? [];
      if (!its.length) rows.push({ ...messageRow, variantId: null, variantMatches: null, variantPattern: null });
      its.forEach((/** @type {any} */ variant, /** @type {number} */ i) =>
        rows.push({
          ...messageRow,
          variantId: `v${message.index}.${i}`,
          variantMatches: json(variant.matches ?? []),
          variantPattern: json(variant.pattern ?? []),
        }),
      );
    }
  }
  return { settings, inputs, rows };
}

/**
 * Map.groupBy (Node 21+; the project runs on Node 20).
 * @template T, K
 * @param {T[]} items
 * @param {(item: T) => K} keyOf
 */
function groupBy(items, keyOf) {
  /** @type {Map<K, T[]>} */
  const groups = new Map();
  for (const item of items) {
    const k = keyOf(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** A stand-in for the SDK's Kysely database that answers selectBundleNested's one query with the rows, already in its order. */
function joinedRows(/** @type {object[]} */ rows) {
  /** @type {Record<string, Function>} */
  const query = {
    leftJoin: () => query,
    select: () => query,
    orderBy: () => query,
    where: () => {
      throw new Error("Only the whole catalogue is compiled.");
    },
    execute: async () => rows,
  };
  return { selectFrom: () => query };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await compileMessages(MESSAGES, { clean: true });
  // Their types as declarations, for the typecheck (decision 135).
  const { writeMessageTypes } = await import("./message-types.mjs");
  writeMessageTypes(MESSAGES.outdir);
  // (When Paraglide's compile() ran, the inlang SDK keeps a timer of its own alive for half a minute.)
  process.exit(0);
}
