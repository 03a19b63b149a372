/**
 * State that exists once per process: the open database, the configuration, the job registry. In
 * development Vite re-evaluates a changed module and its importers on the next request; state kept
 * in a module's own variables would then start empty (a second PGlite on the same directory, which
 * it refuses). Kept on globalThis under a registered symbol, it survives those reloads. In a build
 * every module is evaluated once, so this changes nothing there.
 */
export function processState<T extends object>(name: string, init: () => T): T {
  const key = Symbol.for(`jumbe.${name}`);
  const kept: T | undefined = Reflect.get(globalThis, key);
  if (kept !== undefined && kept !== null) return kept;
  const made = init();
  Reflect.set(globalThis, key, made);
  return made;
}
