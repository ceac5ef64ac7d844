/**
 * Summarises V8 CPU profiles (node --cpu-prof, as `npm run bench -- --profile DIR` writes them):
 * self time per function and per area (our src/, generated/, each dependency, node internals, GC, idle),
 * so that docs/performance.md can say where a request's time goes.
 *
 *   npm run bench -- profile DIR/*.cpuprofile [--top 25]   (scripts/bench/scenarios/profile.ts)
 */
import { relative } from "node:path";
import { ROOT } from "./processes.js";

/** A node of a V8 .cpuprofile (what `node --cpu-prof` writes). */
export interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
/** A V8 .cpuprofile. */
export interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileSummary {
  totalMs: number;
  byArea: { area: string; ms: number; share: number }[];
  byFunction: { fn: string; where: string; ms: number; share: number }[];
  /** Inclusive time of our own functions (src/ and generated/): a function and everything it called. */
  ownInclusive: { fn: string; where: string; ms: number; share: number }[];
}

function area(url: string, fn: string): string {
  if (fn === "(garbage collector)") return "GC";
  if (fn === "(idle)") return "idle";
  if (fn === "(program)") return "(program: native, outside JS)";
  if (!url) return "native / V8 builtins";
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`;
  const path = url.replace(/^file:\/\//, "");
  const nm = path.lastIndexOf("/node_modules/");
  if (nm >= 0) {
    const rest = path.slice(nm + "/node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const rel = relative(ROOT, path);
  if (rel.startsWith("..")) return path;
  const parts = rel.split("/");
  return parts[0] === "src" ? `src/${parts[1] ?? ""}` : parts[0]!;
}

export function summarize(profile: Profile, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  if (profile.samples && profile.timeDeltas) {
    profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas![i] ?? 0) / 1000));
  } else {
    const per =
      (profile.endTime - profile.startTime) /
      1000 /
      Math.max(
        1,
        profile.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0),
      );
    for (const n of profile.nodes) self.set(n.id, (n.hitCount ?? 0) * per);
  }
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const own = new Map<string, { where: string; ms: number }>();
  const areas = new Map<string, number>();
  const fns = new Map<string, { where: string; ms: number }>();
  let total = 0;
  for (const [id, ms] of self) {
    const n = byId.get(id);
    if (!n) continue;
    const { functionName, url, lineNumber } = n.callFrame;
    const a = area(url, functionName);
    if (a === "idle") continue;
    total += ms;
    areas.set(a, (areas.get(a) ?? 0) + ms);
    const where = url
      ? `${a === "native / V8 builtins" ? "" : relative(ROOT, url.replace(/^file:\/\//, "")).replace(/^node_modules\//, "") || url}:${lineNumber + 1}`
      : "";
    const key = `${functionName || "(anonymous)"} ${where}`;
    const f = fns.get(key) ?? { where, ms: 0 };
    f.ms += ms;
    fns.set(key, f);
    // Inclusive: every distinct own frame on this sample's stack gets the sample's time once.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)?.callFrame;
      if (!frame?.url) continue;
      const rel = relative(ROOT, frame.url.replace(/^file:\/\//, ""));
      if (!/^(src|generated)\//.test(rel)) continue;
      const k = `${frame.functionName || "(anonymous)"} ${rel}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const o = own.get(k) ?? { where: rel, ms: 0 };
      o.ms += ms;
      own.set(k, o);
    }
  }
  return {
    totalMs: total,
    byArea: [...areas.entries()].map(([a, ms]) => ({ area: a, ms, share: ms / total })).sort((x, y) => y.ms - x.ms),
    byFunction: [...fns.entries()]
      .map(([k, v]) => ({ fn: k.split(" ")[0]!, where: v.where, ms: v.ms, share: v.ms / total }))
      .sort((x, y) => y.ms - x.ms)
      .slice(0, top),
    ownInclusive: [...own.entries()]
      .map(([k, v]) => ({ fn: k.split(" ")[0]!, where: v.where, ms: v.ms, share: v.ms / total }))
      .sort((x, y) => y.ms - x.ms)
      .slice(0, top),
  };
}
