import { corpus, read } from "./helpers/leave-one-bank-out.js";
for (const l of corpus.filter((x) => process.argv.slice(2).includes(x.layout))) {
  const s = read(l);
  console.log(l.layout, JSON.stringify(s.mapping), s.unsure, s.closing);
  for (const r of s.rows) console.log("  ", r.row, r.date, r.amount, JSON.stringify(r.payee), JSON.stringify(r.description), r.currency, r.error);
}
