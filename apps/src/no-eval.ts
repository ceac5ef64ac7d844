/**
 * Imported first by main.ts, before the ext-apps SDK: zod (which the SDK validates its messages with)
 * probes at its first object parse whether `new Function` works, to compile faster parsers. Under the
 * apps' CSP (no 'unsafe-eval') that probe is an eval the browser refuses and reports as a violation
 * (issue 39). jitless is zod's documented switch that skips the probe and the compiled parsers entirely.
 */
import { config } from "zod";

config({ jitless: true });
