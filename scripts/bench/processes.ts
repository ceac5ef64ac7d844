/**
 * Child processes of the benchmark: the real server (the production start command, `node
 * bin/finance-mcp.js serve`, the compiled build, so that the pid we watch is the server itself) and the baseline servers. Every child is
 * tracked and killed when the benchmark ends, on success, on error, on Ctrl-C and on SIGTERM. Every wait
 * is bounded.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const children = new Set<ChildProcess>();

function killAllNow(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill("SIGKILL");
      } catch {
        /* already gone */
      }
    }
  }
  children.clear();
}

let hooked = false;
/** Kills every child when this process exits, however it exits. */
export function installCleanup(onSignal: () => Promise<void>): void {
  if (hooked) return;
  hooked = true;
  process.on("exit", killAllNow);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      console.error(`\nbench: ${signal}, stopping children`);
      const hard = setTimeout(() => {
        killAllNow();
        process.exit(130);
      }, 5000);
      hard.unref();
      void onSignal()
        .catch(() => undefined)
        .finally(() => {
          killAllNow();
          process.exit(130);
        });
    });
  }
}

export interface Child {
  name: string;
  pid: number;
  port: number;
  /** Baseline processes serving several kinds: the port of each. */
  ports: Record<string, number>;
  process: ChildProcess;
  /** The last lines the child wrote on stderr (for error messages). */
  stderrTail(): string;
  stop(): Promise<void>;
}

interface SpawnSpec {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Reads the port(s) from one line of output, or undefined when the line is not the one. */
  portFrom(line: string): { port: number; ports?: Record<string, number> } | undefined;
  timeoutMs: number;
}

function spawnServer(spec: SpawnSpec): Promise<Child> {
  const child = spawn(process.execPath, spec.args, { cwd: ROOT, env: spec.env, stdio: ["pipe", "pipe", "pipe"] });
  children.add(child);
  const tail: string[] = [];
  const remember = (line: string) => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((done) => child.once("exit", () => done()));
      child.kill("SIGTERM");
      const timer = new Promise<"timeout">((done) => setTimeout(() => done("timeout"), 6000).unref());
      if ((await Promise.race([exited, timer])) === "timeout") {
        child.kill("SIGKILL");
        await Promise.race([exited, new Promise((done) => setTimeout(done, 2000).unref())]);
      }
    }
    children.delete(child);
  };

  return new Promise<Child>((resolvePromise, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stop().then(() => reject(new Error(`${spec.name} did not start: ${why}\n${tail.join("\n")}`)));
    };
    const timer = setTimeout(() => fail(`no port within ${spec.timeoutMs / 1000} s`), spec.timeoutMs);
    const onLine = (line: string) => {
      remember(line);
      if (settled) return;
      const found = spec.portFrom(line);
      if (found === undefined) return;
      settled = true;
      clearTimeout(timer);
      resolvePromise({ name: spec.name, pid: child.pid!, port: found.port, ports: found.ports ?? {}, process: child, stderrTail: () => tail.join("\n"), stop });
    };
    for (const stream of [child.stdout!, child.stderr!]) {
      let buffer = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          onLine(buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
        }
        if (buffer.length > 65536) buffer = buffer.slice(-65536);
      });
    }
    child.once("exit", (code, signal) => fail(`exited (${signal ?? code}) before listening`));
    child.once("error", (err) => fail(err.message));
  });
}

export interface FinanceServerOptions {
  databaseUrl: string;
  env?: Record<string, string>;
  /** Write a V8 CPU profile (node --cpu-prof) into this directory when the server stops. */
  cpuProfDir?: string;
}

/**
 * The real server: `node bin/finance-mcp.js serve` (what `npm start` runs, without npm's wrapper
 * process: the compiled build, rebuilt first when stale), PORT=0 on loopback; the port is read from its
 * "listening" log line.
 */
export function startFinanceServer(opts: FinanceServerOptions): Promise<Child> {
  const args: string[] = [];
  if (opts.cpuProfDir) args.push("--cpu-prof", "--cpu-prof-dir", opts.cpuProfDir);
  args.push("bin/finance-mcp.js", "serve");
  return spawnServer({
    name: "finance-mcp",
    args,
    env: { ...process.env, NODE_ENV: "production", HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "info", ...opts.env, DATABASE_URL: opts.databaseUrl },
    portFrom(line) {
      if (!line.includes('"listening"')) return undefined;
      try {
        const url = (JSON.parse(line) as { url?: string }).url;
        return url ? { port: Number(new URL(url).port) } : undefined;
      } catch {
        return undefined;
      }
    },
    timeoutMs: 90_000,
  });
}

/** Baseline servers (scripts/bench/baseline-server.ts) of the given kinds in one process of their own. */
export function startBaselineServer(kinds: readonly string[]): Promise<Child> {
  return spawnServer({
    name: `baseline ${kinds.join(" + ")}`,
    args: ["--import", "tsx", "scripts/bench/baseline-server.ts", ...kinds],
    env: { ...process.env, NODE_ENV: "production" },
    portFrom(line) {
      if (!line.startsWith('{"ports":')) return undefined;
      try {
        const ports = (JSON.parse(line) as { ports: Record<string, number> }).ports;
        return { port: ports[kinds[0]!]!, ports };
      } catch {
        return undefined;
      }
    },
    timeoutMs: 60_000,
  });
}

// ---------------------------------------------------------------------------------------------
// What /proc says about a process

/** Resident set size and its peak, in MB (VmRSS / VmHWM of /proc/<pid>/status). */
export function memoryOf(pid: number): { rssMB: number; peakMB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    return { rssMB: kb("VmRSS") / 1024, peakMB: kb("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) the process has used so far. */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
