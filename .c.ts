import { readFileSync } from "node:fs";
import { readStatement } from "./src/domain/imports/import.js";
const dir = "test/fixtures/statements/corpus/";
const layouts = JSON.parse(readFileSync(dir + "corpus.json", "utf8"));
let n = 0;
for (const l of layouts) {
  const text = new TextDecoder(l.encoding === "utf-8-bom" ? "utf-8" : l.encoding, { ignoreBOM: true }).decode(readFileSync(dir + l.file));
  try {
    const p = await readStatement({ statement: text, hints: { card: l.wallet_type === "credit_card" } } as any);
    n++;
    if (p.unsure?.keys.includes("sign_out")) console.log("ASKS", l.layout, JSON.stringify(p.unsure.direction));
  } catch (e) { console.log("ERR", l.layout, (e as Error).message.slice(0, 100)); }
}
console.log("read", n, "of", layouts.length);
process.exit(0);
