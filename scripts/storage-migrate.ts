// `npm run storage:migrate`: copies the local storage folder (`DATA_DIR/media`) into the bucket the
// S3 settings name (STORAGE=s3, S3_BUCKET...), under the same keys, resumably, reading every copy
// back (decision 161). Run it before switching an instance to STORAGE=s3, and again (it skips what
// is there) just after, for files written in between. Exit code 1 when a file failed.
import path from "node:path";
import { env } from "../app/.server/infrastructure/config/env";
import { s3ConfigOf, s3FileStorage } from "../app/.server/infrastructure/storage";
import { migrateFolderToBucket } from "../app/.server/infrastructure/storage/migrate";

let config: ReturnType<typeof env>;
try {
  config = env();
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const s3 = s3ConfigOf(config);
if (!s3) {
  console.error("storage:migrate copies into a bucket: set STORAGE=s3 and the S3_ variables (docs/configuration.md).");
  process.exit(2);
}
const root = path.resolve(process.argv[2] ?? path.join(config.DATA_DIR, "media"));
const target = s3FileStorage(s3);
console.log(`Copying ${root} into bucket ${s3.bucket}${s3.endpoint ? ` at ${s3.endpoint}` : ""}...`);
let done = 0;
const report = await migrateFolderToBucket(root, target, (key, outcome) => {
  done++;
  if (outcome === "failed" || done % 500 === 0) console.log(`${done} files: ${key} ${outcome}`);
});
for (const failure of report.failures) console.error(`failed ${failure.key}: ${failure.reason}`);
console.log(
  `${report.found} files: ${report.copied} copied (${report.bytes} bytes, each read back and checked), ${report.skipped} already there, ${report.failed} failed; ${report.ignored} other files left alone.`,
);
target.client.destroy();
process.exit(report.failed ? 1 : 0);
