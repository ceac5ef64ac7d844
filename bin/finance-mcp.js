#!/usr/bin/env node
// The CLI runs the TypeScript sources directly through tsx (a runtime dependency), like `npm start`.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
