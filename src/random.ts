/**
 * The one seeded pseudo-random generator (mulberry32: small, fast, good enough for data sets): the demo
 * ledger, the answer measure, the benchmark's data and the test fixtures draw from it, so the same seed
 * gives the same data everywhere. Never for secrets or ids a stranger must not guess (src/db/ids.ts).
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
