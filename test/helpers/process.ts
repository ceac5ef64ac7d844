/**
 * startServerProcess: another server process over the same database (already migrated), for tests that
 * need several stateless processes (shared rate limits, idempotency across processes, events across
 * processes). Loopback only; the process is killed on stop() and after a bounded start-up wait.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface ServerProcess {
  url: string;
  mcpUrl: string;
  stop(): Promise<void>;
}

export async function startServerProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const entry = fileURLToPath(new URL("./serve-process.ts", import.meta.url));
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", entry], {
    env: { ...process.env, ...env, DATABASE_URL: databaseUrl, LOG_LEVEL: "silent" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("server process did not start within 20 s"));
    }, 20_000);
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split("\n")[0];
      if (line && buffer.includes("\n")) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server process exited with ${code}`));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    mcpUrl: `${url}/api/v1/mcp`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 4000);
      await exited;
      clearTimeout(timer);
    },
  };
}
