// The contacts import benchmark's baseline (bench/contacts-import.mjs), run with `node --import tsx`:
// the same file streamed through Jumbe's own CSV reader and phone check, with no database, so the
// import's figures can be read against the work it cannot avoid. Prints one JSON line.
import { createReadStream } from "node:fs";
import { performance } from "node:perf_hooks";
import { csvRecords } from "../../app/.server/domains/contacts/csv/reader";
import { contactPhone } from "../../app/.server/domains/contacts/fields";

const file = process.argv[2]!;
const started = performance.now();
let rows = -1;
let valid = 0;
const phones = new Set<string>();
let duplicates = 0;
for await (const record of csvRecords(createReadStream(file, { highWaterMark: 64 * 1024 }))) {
  rows++;
  if (rows === 0) continue;
  try {
    const phone = contactPhone(record.fields[1] ?? "");
    valid++;
    if (phones.has(phone)) duplicates++;
    else phones.add(phone);
  } catch {
    // an invalid row
  }
}
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ rows, valid, duplicates, seconds, peakRssBytes: process.resourceUsage().maxRSS * 1024 }));
