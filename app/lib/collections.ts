/** `items` by `key`, each group in the items' order (Map.groupBy comes with Node 21). */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** Runs `work` over `items`, at most `atOnce` at a time; resolves when all are done (rejects on the first failure). */
export async function inParallel<T>(items: readonly T[], atOnce: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
}
