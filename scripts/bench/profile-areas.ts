/**
 * Where a server's CPU goes, by job rather than by file: a V8 CPU profile (node --cpu-prof) cut to a
 * time window (the measured run, without start-up and warm-up) and each sample given to the innermost
 * frame of its stack that names a job — JSON (V8's parse/stringify), validation (the generated
 * validators, ajv), the Postgres driver (pg, knex, tarn), Redis (ioredis, the limiter), HTTP (node's http
 * and net, express and its body parsing), logging, our own code (dist/src or src, by folder) — with
 * frames of node's internals and V8 builtins passed over to their caller. What no frame names is "node
 * internals (event loop, sockets, timers)". docs/performance.md, "Where the time goes".
 *
 *   npm run bench -- profile --areas FILE.cpuprofile [--from µs --to µs]   (scripts/bench/scenarios/profile.ts)
 */
import type { Profile } from "./profile-summary.js";

export interface Areas {
  /** CPU milliseconds in the window (samples not idle). */
  cpuMs: number;
  /** Wall milliseconds of the window. */
  wallMs: number;
  areas: { area: string; ms: number; share: number }[];
}

const DEP = (url: string): string | undefined => {
  const i = url.lastIndexOf("/node_modules/");
  if (i < 0) return undefined;
  const rest = url.slice(i + "/node_modules/".length).split("/");
  return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
};

/** The job a frame names, or undefined when it is passed over to its caller. */
function job(fn: string, url: string): string | undefined {
  if (fn === "(garbage collector)") return "GC";
  if (fn === "(program)") return "native, outside JS (program)";
  if (!url) return fn === "parse" || fn === "stringify" ? "JSON parse/stringify" : undefined;
  if (url.startsWith("node:")) {
    if (/^node:_http_|^node:http$/.test(url)) return "HTTP: node's http (parser, headers, response)";
    return undefined;
  }
  const dep = DEP(url);
  if (dep) {
    if (["pg", "pg-protocol", "pg-types", "pg-pool", "pg-connection-string", "postgres-array", "postgres-date", "knex", "tarn"].includes(dep))
      return "Postgres driver (pg, knex, tarn)";
    if (["ioredis", "@ioredis/commands", "redis-parser", "rate-limiter-flexible", "cluster-key-slot", "denque", "standard-as-callback"].includes(dep))
      return "Redis (ioredis, rate-limiter-flexible)";
    if (["ajv", "ajv-formats", "fast-uri", "fast-deep-equal", "json-schema-traverse"].includes(dep)) return "validation (generated validators, ajv)";
    if (["body-parser", "raw-body", "iconv-lite", "content-type", "type-is", "media-typer", "bytes", "unpipe"].includes(dep))
      return "HTTP: body reading (body-parser, raw-body)";
    if (
      [
        "express",
        "router",
        "body-parser",
        "raw-body",
        "on-finished",
        "finalhandler",
        "cors",
        "content-type",
        "type-is",
        "iconv-lite",
        "send",
        "accepts",
        "negotiator",
        "vary",
        "qs",
        "statuses",
        "depd",
        "http-errors",
        "media-typer",
        "mime-types",
        "parseurl",
        "path-to-regexp",
        "proxy-addr",
        "forwarded",
        "etag",
        "fresh",
        "content-disposition",
        "cookie",
        "safe-buffer",
        "ee-first",
        "unpipe",
        "bytes",
        "encodeurl",
        "escape-html",
        "merge-descriptors",
        "utils-merge",
      ].includes(dep)
    )
      return "HTTP: express (router, middleware, response helpers)";
    if (dep === "pino" || dep.startsWith("pino") || dep === "sonic-boom" || dep === "thread-stream") return "logging";
    return `other dependency: ${dep}`;
  }
  const m = /\/(?:dist\/)?(src|generated)\/([^/]+)/.exec(url);
  if (m) {
    if (m[1] === "generated") return m[2]!.startsWith("validators") ? "validation (generated validators, ajv)" : "our code: generated/";
    if (m[2] === "log.js" || m[2] === "log.ts" || m[2] === "logging") return "logging";
    return `our code: src/${m[2]!.replace(/\.(js|ts)$/, "")}`;
  }
  return undefined;
}

export function areasOf(profile: Profile, window?: { from: number; to: number }): Areas {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, string>();
  const areaOf = (id: number): string => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    let a = "node internals (event loop, sockets, timers)";
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)?.callFrame;
      const j = f ? job(f.functionName, f.url) : undefined;
      if (j) {
        a = j;
        break;
      }
    }
    memo.set(id, a);
    return a;
  };
  const areas = new Map<string, number>();
  let cpu = 0;
  let t = profile.startTime;
  const from = window?.from ?? -Infinity;
  const to = window?.to ?? Infinity;
  const samples = profile.samples ?? [];
  for (let i = 0; i < samples.length; i++) {
    const dt = profile.timeDeltas?.[i] ?? 0;
    t += dt;
    if (t < from || t > to) continue;
    const n = byId.get(samples[i]!);
    if (!n || n.callFrame.functionName === "(idle)") continue;
    // A sample stands for the time until the next one.
    const ms = (profile.timeDeltas?.[i + 1] ?? dt) / 1000;
    cpu += ms;
    const a = areaOf(n.id);
    areas.set(a, (areas.get(a) ?? 0) + ms);
  }
  const wall = (Math.min(to, profile.endTime) - Math.max(from, profile.startTime)) / 1000;
  return {
    cpuMs: cpu,
    wallMs: wall,
    areas: [...areas].map(([area, ms]) => ({ area, ms, share: ms / Math.max(1e-9, cpu) })).sort((x, y) => y.ms - x.ms),
  };
}
