/**
 * `npm run admin:create`: makes an installation's first platform administrator (issue 74, decision
 * 112), with the application's own database layer and password hashing. It asks for the e-mail, the
 * name and the password (typed twice, never shown) on the terminal; a password is never read from
 * the command line. Without a terminal (automation), it reads the same five answers from standard
 * input, one a line: e-mail, first name, last name, password, password again.
 *
 * It opens the database the server would (`DATABASE_URL`, or PGlite in `DATA_DIR/pglite`: stop the
 * service first, PGlite opens its directory in one process only) and applies pending migrations.
 * Exit codes: 0 made, or already an administrator (nothing changed); 1 refused (the reason printed).
 */
import path from "node:path";
import { createInterface } from "node:readline";

/** The answers of a script, one a line, read once from standard input. */
async function pipedLines() {
  const lines: string[] = [];
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) lines.push(line);
  return lines;
}

/** One answer typed on the terminal; a hidden one echoes nothing. */
function ask(question: string, hidden = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stdout.write(question);
    if (!hidden) {
      const reader = createInterface({ input: stdin, output: process.stdout, terminal: false });
      reader.once("line", (line) => {
        reader.close();
        resolve(line.trim());
      });
      return;
    }
    let typed = "";
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding("utf8");
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n") {
          stdin.setRawMode(false);
          stdin.pause();
          stdin.off("data", onData);
          process.stdout.write("\n");
          resolve(typed);
          return;
        }
        if (char === "\u0003") {
          stdin.setRawMode(false);
          process.stdout.write("\n");
          reject(new Error("Stopped."));
          return;
        }
        if (char === "\u007f" || char === "\b") typed = typed.slice(0, -1);
        else if (char >= " ") typed += char;
      }
    };
    stdin.on("data", onData);
  });
}

async function answers() {
  if (!process.stdin.isTTY) {
    const [email = "", firstName = "", lastName = "", password = "", confirmPassword = ""] = await pipedLines();
    return { email: email.trim(), firstName: firstName.trim(), lastName: lastName.trim(), password, confirmPassword };
  }
  const email = await ask("E-mail address: ");
  const firstName = await ask("First name: ");
  const lastName = await ask("Last name: ");
  const password = await ask("Password (at least 8 characters, not shown): ", true);
  const confirmPassword = await ask("Password again: ", true);
  return { email, firstName, lastName, password, confirmPassword };
}

async function main() {
  if (process.argv.length > 2) {
    console.error("admin:create takes no arguments: it asks for the e-mail, the name and the password (never on the command line).");
    return 1;
  }
  const input = await answers();
  // The application is loaded once the answers are in (a refused command line costs nothing).
  const { env } = await import("~/.server/infrastructure/config/env");
  const { closeDatabase, openDatabase } = await import("~/.server/infrastructure/db/client");
  const { createFirstAdministrator } = await import("~/.server/domains/admin/staff/first-admin");
  const config = env();
  await openDatabase(
    config.DATABASE_URL
      ? { databaseUrl: config.DATABASE_URL, poolSize: 1, pooler: config.DATABASE_POOLER, directUrl: config.DATABASE_DIRECT_URL }
      : { dataDir: path.join(config.DATA_DIR, "pglite") },
  );
  try {
    const result = await createFirstAdministrator(input);
    if (result.outcome === "refused") {
      for (const problem of result.problems) console.error(`Refused: ${problem}`);
      return 1;
    }
    if (result.outcome === "exists") {
      console.log(`${result.email} is already a platform administrator: nothing changed.`);
      return 0;
    }
    console.log(
      `Platform administrator ${result.email} created. Sign in at ${config.APP_URL}/login: two-factor sign-in is set up first, then the console opens at /admin.`,
    );
    return 0;
  } finally {
    await closeDatabase();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
