/**
 * startServerProcess: another server process over the same database (already migrated), for tests that
 * need several stateless processes (shared rate limits, idempotency across processes, events across
 * processes) or a real process to signal (graceful shutdown). Loopback only; the process is killed on
 * stop() and after a bounded start-up wait.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface ServerProcess {
  url: string;
  mcpUrl: string;
  child: ChildProcess;
  /** stderr lines so far (the JSON log lines when started with logs: true). */
  logs: string[];
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export async function startServerProcess(databaseUrl: string, env: Record<string, string> = {}, options: { logs?: boolean } = {}): Promise<ServerProcess> {
  const entry = fileURLToPath(new URL("./serve-process.ts", import.meta.url));
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", entry], {
    env: { ...process.env, LOG_LEVEL: options.logs ? "info" : "silent", ...env, DATABASE_URL: databaseUrl },
    stdio: ["ignore", "pipe", options.logs ? "pipe" : "inherit"],
  });
  const logs: string[] = [];
  if (options.logs) {
    let rest = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split("\n");
      rest = lines.pop() ?? "";
      logs.push(...lines.filter(Boolean));
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("server process did not start within 90 s"));
      // A bound, not a measure: tsx compiling the server in a fresh process took over 20 s at load 24 on
      // two cores (a test that failed only under load); the calling test's own timeout still applies.
    }, 90_000);
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split("\n")[0];
      if (line && buffer.includes("\n")) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server process exited with ${code}`));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    mcpUrl: `${url}/api/v1/mcp`,
    child,
    logs,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 4000);
      await exited;
      clearTimeout(timer);
    },
  };
}
