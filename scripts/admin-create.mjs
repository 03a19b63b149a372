// `npm run admin:create` (scripts/admin-create.ts): the built command where the server is built
// (production: build/server/admin-create.js, no development tools needed), else the source with tsx.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const built = path.join(root, "build/server/admin-create.js");
const args = existsSync(built) ? [built] : ["--import", "tsx", path.join(root, "scripts/admin-create.ts")];
const run = spawnSync(process.execPath, [...args, ...process.argv.slice(2)], { stdio: "inherit", cwd: root });
process.exit(run.status ?? 1);
