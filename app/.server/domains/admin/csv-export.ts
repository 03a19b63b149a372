import { AsyncLocalStorage } from "node:async_hooks";
import { csvRow } from "../activity";
import { log } from "../../infrastructure/log";
import { nairobiDate } from "~/lib/dates";

/**
 * The admin console's Export Data: a CSV streamed page by page (each page one keyset query), so the
 * memory is one page whatever the table's size. Cells are formula-safe (csvCell). The rows come from
 * `pages`: an async generator yielding arrays of cells, in the header's order.
 */
export function streamedCsv(
  name: string,
  header: readonly string[],
  pages: () => AsyncGenerator<readonly (string | number | null | undefined)[][]>,
): Response {
  const encoder = new TextEncoder();
  // The pages are read as the browser takes them, after the route answered: in the request's own
  // context still, so they may read the replica and see the person's own writes (decision 163).
  const inRequest = AsyncLocalStorage.snapshot();
  let iterator: AsyncGenerator<readonly (string | number | null | undefined)[][]> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // A byte-order mark: spreadsheets then read the file as UTF-8 (names with accents, "KSh").
      controller.enqueue(encoder.encode(`\uFEFF${csvRow([...header])}`));
    },
    async pull(controller) {
      const pager = (iterator ??= pages());
      try {
        const next = await inRequest(() => pager.next());
        if (next.done) return controller.close();
        controller.enqueue(encoder.encode(next.value.map((row) => csvRow([...row])).join("")));
      } catch (error) {
        log().error({ err: error, export: name }, "admin export failed mid-stream");
        controller.error(error);
      }
    },
    async cancel() {
      await iterator?.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}_${nairobiDate(new Date())}.csv"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
