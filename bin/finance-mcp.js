#!/usr/bin/env node
// The CLI and the server run the compiled build (dist/). In a checkout it is built first when missing
// or older than the sources (bin/build.js); an installed package ships dist/ and builds nothing.
import { ensureBuild } from "./build.js";

try {
  ensureBuild();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
await import("../dist/src/cli/main.js");
