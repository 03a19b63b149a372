import path from "node:path";
import type { CompilerOptions } from "@inlang/paraglide-js";
import type { Plugin } from "vite";
import { compileMessages } from "./messages.mjs";

/**
 * The words compiled for Vite (decision 132), in place of Paraglide's Vite plugin: the same
 * compile as `npm run messages` (scripts/messages.mjs), once per process, not once per plugin
 * instance and environment. `react-router build` starts the plugins six times (its route reading,
 * then the browser and the server environments), and Paraglide's plugin digested its inputs each
 * time after compiling through the inlang SDK's database. Here the first start compiles and the
 * others wait for that one; the development server compiles again when a words file or the inlang
 * settings change (Vite then reloads what imports the changed language modules).
 */
export function compiledMessages(options: CompilerOptions): Plugin {
  const outdir = path.resolve(process.cwd(), options.outdir);
  // Vite loads the configuration, and so makes this plugin, more than once in one process.
  const state = ((globalThis as { [COMPILES]?: Map<string, Compile> })[COMPILES] ??= new Map());
  let command: "build" | "serve" = "build";
  const compile = () => {
    const previous = state.get(outdir)?.done ?? Promise.resolve();
    // One at a time: an edit during a compile compiles again after it.
    const done = previous
      .catch(() => undefined)
      .then(() => compileMessages(options))
      .then(({ inputs }: { inputs: string[] }) => {
        entry.inputs = new Set(inputs);
      });
    const entry: Compile = { done, inputs: state.get(outdir)?.inputs ?? new Set() };
    state.set(outdir, entry);
    return done;
  };
  return {
    name: "jumbe:compiled-messages",
    enforce: "pre",
    configResolved(config) {
      command = config.command;
    },
    async buildStart() {
      try {
        await (state.get(outdir)?.done ?? compile());
      } catch (error) {
        // The build fails; the development server keeps serving with the words it had.
        if (command === "build") throw error;
        this.warn(`The words did not compile: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    async watchChange(id) {
      if (!state.get(outdir)?.inputs.has(path.resolve(id))) return;
      try {
        await compile();
      } catch (error) {
        this.warn(`The words did not compile: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}

const COMPILES = Symbol.for("jumbe:compiled-messages");
interface Compile {
  done: Promise<void>;
  /** The settings and words files the last compile read. */
  inputs: Set<string>;
}
