#!/usr/bin/env node
/**
 * The compiled build: tsc (tsconfig.build.json) into dist/, plus generated/*.js (precompiled validators,
 * already JavaScript), and dist/.build-hash, the hash of the sources it was built from.
 *
 *   node bin/build.js            build now (npm run build)
 *   ensureBuild()                build only when dist/ is missing or older than the sources (npm start,
 *                                the finance-mcp bin); an installed package has no src/ and never builds
 *
 * Concurrent starters (tests spawn several processes) take a lock folder and build into a temporary
 * folder renamed into place, so nobody runs a half-written dist/.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const DIST = join(ROOT, "dist");
const LOCK = join(ROOT, "dist.lock");
const HASH_FILE = ".build-hash";
const INPUTS = ["src", "generated", "tsconfig.json", "tsconfig.build.json"];

function files(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => files(join(path, name)));
}

/** Hash of every source file's path and content; undefined in an installed package (no src/). */
export function sourceHash() {
  if (!existsSync(join(ROOT, "src")) || !existsSync(join(ROOT, "tsconfig.build.json"))) return undefined;
  const h = createHash("sha256");
  for (const file of INPUTS.flatMap((p) => files(join(ROOT, p)))) {
    h.update(relative(ROOT, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return h.digest("hex");
}

function builtHash() {
  try {
    return readFileSync(join(DIST, HASH_FILE), "utf8").trim();
  } catch {
    return undefined;
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Takes the lock folder, waiting (bounded) for another builder; a dead builder's lock is taken over. */
function lock() {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, "pid"), String(process.pid));
      return;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      let pid = NaN;
      try {
        pid = Number(readFileSync(join(LOCK, "pid"), "utf8"));
      } catch {
        /* being written */
      }
      if (Number.isInteger(pid) && pid > 0 && !alive(pid)) rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`finance-mcp: another build holds ${LOCK} for over 3 minutes`, { cause: err });
      else sleep(200);
    }
  }
}

function compile(hash) {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  } catch {
    throw new Error("finance-mcp: dist/ is missing or out of date and TypeScript is not installed: run `npm install`, then `npm run build`");
  }
  const tmp = join(ROOT, `dist.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json"), "--outDir", tmp], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`finance-mcp: the build failed (tsc exited with ${r.status ?? r.signal})`);
  }
  // Already JavaScript (tsc takes their .d.ts twins instead): copied as they are.
  for (const file of files(join(ROOT, "generated")).filter((f) => f.endsWith(".js"))) {
    copyFileSync(file, join(tmp, relative(ROOT, file)));
  }
  writeFileSync(join(tmp, HASH_FILE), `${hash}\n`);
  const old = join(ROOT, `dist.old-${process.pid}`);
  if (existsSync(DIST)) renameSync(DIST, old);
  renameSync(tmp, DIST);
  rmSync(old, { recursive: true, force: true });
}

/** Builds when dist/ is missing or stale (or always, with force). Returns whether it built. */
export function ensureBuild({ force = false, quiet = false } = {}) {
  const hash = sourceHash();
  if (hash === undefined) {
    if (!existsSync(join(DIST, "src", "main.js"))) throw new Error("finance-mcp: dist/ is missing and there are no sources to build it from");
    return false;
  }
  if (!force && builtHash() === hash) return false;
  lock();
  try {
    if (!force && builtHash() === hash) return false; // built by whoever held the lock
    if (!quiet) process.stderr.write("finance-mcp: building dist/ (tsc) ...\n");
    compile(hash);
    return true;
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    ensureBuild({ force: !process.argv.includes("--if-stale"), quiet: true });
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
