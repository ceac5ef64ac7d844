/**
 * Load generation (autocannon as a library) and measurement around it: requests per second, latency
 * percentiles, errors, the CPU the server and this process used (to show which side was saturated) and
 * the server's memory afterwards. Plus single requests (probes) and an unloaded latency series over one
 * keep-alive connection, whose percentiles have microsecond resolution (autocannon's are whole ms).
 */
import { Agent, request as httpRequest } from "node:http";
import { loadavg } from "node:os";
import autocannon, { type Request as AcRequest, type Result } from "autocannon";
import { cpuSecondsOf, memoryOf } from "./processes.js";

export interface HttpCall {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface LoadStats {
  durationSec: number;
  /** 2xx answers whose body passed the check, per second. */
  okPerSec: number;
  /** Every answer, per second. */
  answersPerSec: number;
  ok: number;
  answers: number;
  non2xx: number;
  /** 2xx answers whose body was an error (or failed the tool's check). */
  badBodies: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  connections: number;
  /** Server CPU use during the run as a share of one core (1.0 = one core busy all the time). */
  serverCores?: number;
  /** This process's (the load generator's) CPU use as a share of one core. */
  clientCores: number;
  serverRssMB?: number;
  serverPeakRssMB?: number;
  /** The machine's 1-minute load average right after the run (above the core count: other work competed). */
  loadAvg1: number;
}

export interface LoadSpec {
  origin: string;
  connections: number;
  durationSec: number;
  warmupSec: number;
  requests: AcRequest[];
  /** True when a 2xx body is a success (a JSON-RPC result, not an error). */
  verify: (body: string) => boolean;
  /** The server's pid, for CPU and memory. */
  pid?: number;
  /** Called between the warm-up and the measured run. */
  onMeasureStart?: () => void;
  /**
   * Measure a fixed number of requests instead of a fixed time: as many as the warm-up managed in
   * durationSec (at least 2 per connection). The run then ends when every request has its answer, so
   * nothing is in flight when it stops (what the write check needs to compare rows with answers).
   */
  byCount?: boolean;
}

/** An autocannon run, and the seconds between its first request and its end. */
async function run(spec: LoadSpec, durationSec: number, amount?: number): Promise<Result & { loadSec: number }> {
  let startedAt = performance.now();
  const instance = autocannon({
    url: spec.origin,
    connections: spec.connections,
    ...(amount ? { amount } : { duration: durationSec }),
    pipelining: 1,
    timeout: 10,
    requests: spec.requests,
    verifyBody: spec.verify,
  });
  // autocannon's own duration also counts setting up its connections, before any request is sent, and
  // runs on to its next one-second sample after the last answer: the rate is taken from the first
  // request to the last answer instead.
  let lastAnswerAt = 0;
  instance.on("start", () => {
    startedAt = performance.now();
  });
  instance.on("response", () => {
    lastAnswerAt = performance.now();
  });
  // A count-bounded run is bounded in time too.
  const guard = amount ? setTimeout(() => instance.stop(), (3 * durationSec + 30) * 1000) : undefined;
  try {
    const r = await Promise.resolve(instance);
    const end = lastAnswerAt > startedAt ? lastAnswerAt : performance.now();
    return { ...r, loadSec: (end - startedAt) / 1000 };
  } finally {
    clearTimeout(guard);
  }
}

/**
 * Waits until the process has used less than a fifth of a core over 100 ms (at most maxMs): when the
 * load generator stops, the server still has every request it had already read to answer, and a slow
 * tool's backlog would otherwise be counted against the next measurement.
 */
export async function waitIdle(pid: number | undefined, maxMs = 30_000): Promise<void> {
  if (pid === undefined) return;
  const deadline = performance.now() + maxMs;
  let before = cpuSecondsOf(pid);
  while (before !== undefined && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    const now = cpuSecondsOf(pid);
    if (now === undefined || now - before < 0.02) return;
    before = now;
  }
}

export async function measureLoad(spec: LoadSpec): Promise<LoadStats> {
  if (spec.requests.length === 0) throw new Error("measureLoad: no requests to send");
  let warmRate = 0;
  if (spec.warmupSec > 0) {
    const w = await run(spec, spec.warmupSec);
    warmRate = (w["2xx"] - w.mismatches) / Math.max(0.1, w.loadSec);
    await waitIdle(spec.pid);
  }
  const amount = spec.byCount ? Math.max(2 * spec.connections, Math.round(warmRate * spec.durationSec)) : undefined;
  spec.onMeasureStart?.();
  const serverCpu0 = spec.pid ? cpuSecondsOf(spec.pid) : undefined;
  const clientCpu0 = process.cpuUsage();
  const r = await run(spec, spec.durationSec, amount);
  const wall = r.loadSec;
  const clientCpu = process.cpuUsage(clientCpu0);
  const serverCpu1 = spec.pid ? cpuSecondsOf(spec.pid) : undefined;
  const mem = spec.pid ? memoryOf(spec.pid) : undefined;
  await waitIdle(spec.pid);
  // From the first request to the end of the run (autocannon stops on its next one-second sample
  // after the duration, and the answers counted are those received by then).
  const durationSec = wall;
  const answers = r["1xx"] + r["2xx"] + r["3xx"] + r["4xx"] + r["5xx"];
  const ok = r["2xx"] - r.mismatches;
  const statusCodes: Record<string, number> = {};
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = s.count;
  return {
    durationSec,
    okPerSec: ok / durationSec,
    answersPerSec: answers / durationSec,
    ok,
    answers,
    non2xx: r.non2xx,
    badBodies: r.mismatches,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max, mean: r.latency.mean },
    connections: spec.connections,
    serverCores: serverCpu0 !== undefined && serverCpu1 !== undefined ? (serverCpu1 - serverCpu0) / wall : undefined,
    clientCores: (clientCpu.user + clientCpu.system) / 1e6 / wall,
    serverRssMB: mem?.rssMB,
    serverPeakRssMB: mem?.peakMB,
    loadAvg1: Math.round(loadavg()[0]! * 100) / 100,
  };
}

// ---------------------------------------------------------------------------------------------
// Single requests

export interface Answer {
  status: number;
  text: string;
  json: unknown;
}

/**
 * One request. Without an agent it goes on a connection of its own (a kept-alive socket that sat idle
 * through a load run may be closed by the server's keep-alive timeout just as it is reused).
 */
export function call(origin: string, c: HttpCall, timeoutMs = 15_000, agent?: Agent): Promise<Answer> {
  const url = new URL(c.path, origin);
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "POST", agent: agent ?? false, headers: { ...c.headers, "content-length": String(Buffer.byteLength(c.body)) }, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, json });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(c.body);
  });
}

export interface LatencySeries {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
}

/**
 * Latency of one request at a time over one keep-alive connection: `n` requests (after `warm` unrecorded
 * ones), stopping early after `maxMs`. `next()` gives the call to make each time.
 */
export async function latencySeries(
  origin: string,
  next: () => HttpCall,
  n: number,
  warm: number,
  maxMs: number,
  callTimeoutMs = 15_000,
): Promise<LatencySeries> {
  const deadline = performance.now() + maxMs;
  const times: number[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < warm + n && performance.now() < deadline; i++) {
      const t0 = performance.now();
      const a = await call(origin, next(), callTimeoutMs, agent);
      const dt = performance.now() - t0;
      if (a.status < 200 || a.status >= 300) throw new Error(`latency series: HTTP ${a.status}: ${a.text.slice(0, 300)}`);
      if (i >= warm) times.push(dt);
    }
  } finally {
    agent.destroy();
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN;
  return { n: times.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), mean: times.reduce((s, t) => s + t, 0) / Math.max(1, times.length) };
}
