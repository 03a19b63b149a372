// A helper server in a child process that prints {"port": N} on its first stdout line once it
// listens (bench/lib/bare-server.mjs, bench/baseline-app/server.mjs).
import { spawn } from "node:child_process";

/** Spawns `node <script>` and resolves to { baseUrl, port, pid, stop, output } once it reports its port. */
export function startListeningChild(script, { name, cwd, env = process.env, timeoutMs = 15_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise((done) => child.once("exit", done));
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-20_000);
    });
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const force = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(force);
      }
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${name ?? script} did not start within ${timeoutMs / 1000} s\n${stderr.trim()}`));
    }, timeoutMs);
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name ?? script} exited before it listened (code ${code}, signal ${signal})\n${stderr.trim()}`));
    });
    child.stdout.on("data", (chunk) => {
      if (stdout.includes("\n")) return;
      stdout += chunk.toString("utf8");
      if (!stdout.includes("\n")) return;
      clearTimeout(timer);
      const { port } = JSON.parse(stdout.split("\n")[0]);
      resolve({ baseUrl: `http://127.0.0.1:${port}`, port, pid: child.pid, stop, output: () => stderr });
    });
  });
}
