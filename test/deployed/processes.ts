/**
 * The product as a person runs it (test/deployed): the compiled server started by `npm start` as its own
 * process, and the `finance-mcp` command as separate processes beside it, as the README says. Nothing
 * here imports the server's code: everything goes through the processes, HTTP and MCP.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "bin/finance-mcp.js");
export const PASSWORD = "a long enough password for the journey";

/** The environment of every process: the database, the password for the CLI, a port of the system's choosing. */
export function baseEnv(databaseUrl: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    DATABASE_URL: databaseUrl,
    FINANCE_MCP_PASSWORD: PASSWORD,
    npm_config_update_notifier: "false",
  };
}

export interface ServerProcess {
  url: string;
  mcpUrl: string;
  /** Everything the server logged so far (JSON lines on stderr). */
  log(): string;
  /** SIGTERM to its process group (npm, its shell and the server); resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** `npm start` on a port of the system's choosing, resolved once its "listening" line names the URL. */
export function npmStart(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn("npm", ["start", "--silent"], { cwd: ROOT, env: { ...env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" }, detached: true });
  let err = "";
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stop = async () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      /* already gone */
    }
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`npm start did not log "listening" within 150 s:\n${err}`));
    }, 150_000);
    child.stderr!.on("data", (c: Buffer) => {
      err += c.toString();
      const line = err.split("\n").find((l) => l.includes('"event":"listening"'));
      if (!line) return;
      clearTimeout(timer);
      const mcpUrl = (JSON.parse(line) as { url: string }).url;
      resolve({ url: new URL(mcpUrl).origin, mcpUrl, log: () => err, stop });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${err}`));
    });
  });
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One `finance-mcp …` command, as `npx finance-mcp` runs it in the checkout (node bin/finance-mcp.js). */
export function cli(args: string[], env: Record<string, string>): Promise<Run> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...env, LOG_LEVEL: "error" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (process.env.DEPLOYED_FIGURES) console.log(JSON.stringify({ cli: args.slice(0, 2).join(" "), ms: Date.now() - t0 }));
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * `finance-mcp demo --port 0` beside the live server (its own fresh database, its own server): resolved
 * once it printed "Ready.", then stopped with SIGTERM.
 */
export function demoUntilReady(env: Record<string, string>): Promise<{ stdout: string; code: number | null }> {
  const child: ChildProcess = spawn(process.execPath, [BIN, "demo", "--port", "0"], { cwd: ROOT, env, detached: true });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`demo did not print "Ready." within 120 s:\n${stdout}\n${stderr}`));
    }, 120_000);
    child.stdout!.on("data", (c: Buffer) => {
      stdout += c.toString();
      if (!stdout.includes("Ready.")) return;
      clearTimeout(timer);
      process.kill(-child.pid!, "SIGTERM");
      void exited.then((code) => resolve({ stdout, code }));
    });
    void exited.then((code) => {
      if (!stdout.includes("Ready.")) reject(new Error(`demo exited with ${code}:\n${stdout}\n${stderr}`));
    });
  });
}
