/** docs/bench/results.md and docs/bench/chart.svg from the results (hand-built SVG, no chart library). */
import { bestSdk, echoReference, fmt, largest, writeCheckOk, writeChecksOf, type BenchResults, type EngineRun, type ToolRun } from "./results.js";

const statusText = (t: ToolRun): string => (t.status === "ok" ? (t.note ? "errors" : "ok") : t.status.replace(/_/g, " "));

function toolTable(r: BenchResults, e: EngineRun): string {
  const s = largest(e);
  if (!s) return `_${e.note ?? e.status}_\n`;
  const echo = echoReference(r, e.engine);
  const sdk = bestSdk(r);
  const rows = s.tools.map((t) => {
    const l = t.load;
    const cells = l
      ? [
          fmt(l.okPerSec),
          echo ? fmt(l.okPerSec / echo, 2) : "–",
          sdk ? fmt(l.okPerSec / sdk.okPerSec, 1) : "–",
          fmt(l.latencyMs.p50),
          fmt(l.latencyMs.p99),
          fmt(l.latencyMs.max),
          fmt(l.serverCores, 2),
          fmt(l.serverRssMB),
        ]
      : ["–", "–", "–", "–", "–", "–", "–", "–"];
    return `| ${t.label} | ${statusText(t)} | ${cells.join(" | ")} |`;
  });
  const notes = s.tools.filter((t) => t.note).map((t) => `- ${t.label}: ${t.note}`);
  return [
    `${fmt(s.mainTransactions)} transactions of the measured user (plus ${fmt((s.seed.rows.transactions ?? 0) - s.mainTransactions)} of ${fmt(r.settings.otherUsers)} other users).`,
    "",
    "| tool | status | req/s | × echo | × best SDK | p50 ms | p99 ms | max ms | server CPU (cores) | server RSS MB |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ...rows,
    "",
    ...(notes.length ? ["Notes:", "", ...notes, ""] : []),
  ].join("\n");
}

export function renderMarkdown(r: BenchResults): string {
  const m = r.meta;
  const out: string[] = [];
  out.push("# finance-mcp benchmark results", "");
  out.push(
    `Produced by \`${m.command}\` on ${m.date.slice(0, 16).replace("T", " ")} UTC at commit \`${m.gitCommit}\`${m.gitDirty ? " (with uncommitted changes in the tree)" : ""}.`,
    `Machine: ${m.cpuModel}, ${m.nproc} cores, ${m.memTotalGB} GB RAM, ${m.os}; Node ${m.node}. Load average at the start ${m.loadAvgStart.join(" / ")}${m.loadAvgEnd ? `, at the end ${m.loadAvgEnd.join(" / ")}` : ""} (1 / 5 / 15 min).`,
    `Load: autocannon, ${r.settings.connections} connections, ${r.settings.durationSec} s per measurement after ${r.settings.warmupSec} s of warm-up${r.settings.processWarmupSec ? ` (and ${r.settings.processWarmupSec} s for each fresh server process before its first measurement, baselines included)` : ""}, on loopback. The server is \`node bin/finance-mcp.js serve\` (the compiled build \`npm start\` runs) with its defaults except ${Object.keys(
      r.settings.serverEnv,
    )
      .map((k) => `\`${k}\``)
      .join(", ")}; the baselines run as their own processes too. How to read this: docs/performance.md.`,
    "",
  );

  out.push("## Targets", "", "| | target | subject | measured | threshold |", "|---|---|---|---|---|");
  for (const t of r.targets)
    out.push(`| ${t.met === null ? "n/a" : t.met ? "met" : "**missed**"} | ${t.text} | ${t.subject} | ${t.measured} | ${t.threshold} |`);
  out.push("");

  out.push("## Baselines", "", "| server | req/s | p50 ms | p99 ms | max ms | server CPU (cores) | client CPU (cores) |", "|---|--:|--:|--:|--:|--:|--:|");
  for (const b of r.baselines)
    out.push(
      `| ${b.label} | ${fmt(b.load.okPerSec)} | ${fmt(b.load.latencyMs.p50)} | ${fmt(b.load.latencyMs.p99)} | ${fmt(b.load.latencyMs.max)} | ${fmt(b.load.serverCores, 2)} | ${fmt(b.load.clientCores, 2)} |`,
    );
  if (r.echoMid)
    out.push(
      `| express JSON echo, again after the SQLite measurements | ${fmt(r.echoMid.okPerSec)} | ${fmt(r.echoMid.latencyMs.p50)} | ${fmt(r.echoMid.latencyMs.p99)} | ${fmt(r.echoMid.latencyMs.max)} | ${fmt(r.echoMid.serverCores, 2)} | ${fmt(r.echoMid.clientCores, 2)} |`,
    );
  if (r.echoEnd)
    out.push(
      `| express JSON echo, again at the end | ${fmt(r.echoEnd.okPerSec)} | ${fmt(r.echoEnd.latencyMs.p50)} | ${fmt(r.echoEnd.latencyMs.p99)} | ${fmt(r.echoEnd.latencyMs.max)} | ${fmt(r.echoEnd.serverCores, 2)} | ${fmt(r.echoEnd.clientCores, 2)} |`,
    );
  out.push(
    "",
    `Ratios use the fastest echo run (${fmt(echoReference(r))} req/s: the echo keeps speeding up as it warms, and the ceiling is its warmest run; the spread between the echo runs also shows how much the machine drifted) and the faster SDK server (${bestSdk(r)?.label ?? "–"}).`,
    "",
  );

  for (const e of r.engines) {
    out.push(`## Tools on ${e.engine === "sqlite" ? "SQLite" : "Postgres"}`, "", toolTable(r, e));
  }

  out.push(
    "## Latency against history size",
    "",
    "Alone: one request at a time over one connection (microsecond timer). Loaded: under the full load above (autocannon, whole milliseconds).",
    "",
  );
  out.push("| tool | engine | transactions | alone p50 ms | alone p99 ms | loaded p50 ms | loaded p99 ms | req/s |", "|---|---|--:|--:|--:|--:|--:|--:|");
  for (const e of r.engines) {
    for (const s of e.scales) {
      for (const t of s.tools.filter(
        (x) => x.latency || (x.status !== "ok" && ["list_transactions", "get_transaction_summary", "get_wallet_balance", "get_budget_status"].includes(x.id)),
      )) {
        out.push(
          `| ${t.label} | ${e.engine} | ${fmt(s.mainTransactions)} | ${t.latency ? fmt(t.latency.p50, 2) : statusText(t)} | ${fmt(t.latency?.p99, 2)} | ${fmt(t.load?.latencyMs.p50)} | ${fmt(t.load?.latencyMs.p99)} | ${fmt(t.load?.okPerSec)} |`,
        );
      }
    }
  }
  out.push("");

  out.push(
    "## Writes: nothing lost, nothing duplicated",
    "",
    "Every create_transaction of the measured run carries a new idempotency key; the run is a fixed number of requests (what the warm-up managed in the measuring time) and ends when each has its answer. Afterwards the rows of the run are counted in the database and matched, id by id, with the acknowledged answers.",
    "",
  );
  out.push(
    "| tool | engine | transactions | acknowledged (2xx, committed) | rows | audit rows | distinct keys | lost | duplicated | written, not acknowledged | verdict |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|",
  );
  for (const e of r.engines) {
    for (const s of e.scales) {
      const checks = writeChecksOf(s);
      for (const t of s.tools.filter((x) => x.kind === "write")) {
        const w = checks[t.id];
        const gaveUp = w?.clientGaveUp ?? t.load?.errors ?? 0;
        if (w)
          out.push(
            `| ${t.label} | ${e.engine} | ${fmt(s.mainTransactions)} | ${fmt(w.acknowledged)} | ${fmt(w.rows)} | ${fmt(w.auditRows ?? undefined)} | ${fmt(w.distinctKeys ?? undefined)} | ${w.lost} | ${w.duplicated ?? "?"} | ${w.inFlightAtStop}${gaveUp ? ` (client gave up on ${gaveUp})` : ""} | ${writeCheckOk(w, gaveUp) ? "ok" : "**failed**"} |`,
          );
        else out.push(`| ${t.label} | ${e.engine} | ${fmt(s.mainTransactions)} | ${statusText(t)} | | | | | | | |`);
      }
    }
  }
  out.push("");

  out.push("## Memory", "");
  out.push(`- At the end (${r.memory.where}): RSS ${fmt(r.memory.endRssMB, 1)} MB, peak ${fmt(r.memory.endPeakMB, 1)} MB.`);
  for (const e of r.engines)
    for (const s of e.scales)
      out.push(
        `- ${e.engine}, ${fmt(s.mainTransactions)} transactions: RSS ${fmt(s.serverRssEndMB, 1)} MB at the end of its measurements, peak ${fmt(s.serverPeakRssMB, 1)} MB.`,
      );
  const su = r.sustained;
  if (su) {
    const rss = su.samples.map((x) => x.rssMB);
    out.push(
      `- Sustained run: ${fmt(su.seconds)} s of mixed load over ${su.targets.join(", ")} at ${fmt(su.load.okPerSec)} req/s (${su.load.non2xx + su.load.badBodies} errors); RSS sampled every 2 s: min ${fmt(Math.min(...rss), 1)}, max ${fmt(Math.max(...rss), 1)} MB; median ${fmt(su.firstWindowMedianMB, 1)} MB in the first ${fmt(su.windowSec)} s and ${fmt(su.lastWindowMedianMB, 1)} MB in the last ${fmt(su.windowSec)} s.`,
    );
  } else {
    out.push(`- Sustained run: ${r.sustainedNote ?? "not run"}.`);
  }
  out.push("");

  out.push(
    "## Seeding",
    "",
    "| engine | measured user's transactions | all transactions | tags | seconds | of which index rebuild |",
    "|---|--:|--:|--:|--:|--:|",
  );
  for (const e of r.engines)
    for (const s of e.scales)
      out.push(
        `| ${e.engine} | ${fmt(s.mainTransactions)} | ${fmt(s.seed.rows.transactions)} | ${fmt(s.seed.rows.transaction_tags)} | ${fmt(s.seed.seconds, 1)} | ${fmt(s.seed.indexSeconds, 1)} |`,
      );
  for (const e of r.engines) if (e.status !== "ok") out.push("", `${e.engine}: ${e.note ?? e.status}.`);
  out.push("");
  return out.join("\n");
}

// ---------------------------------------------------------------------------------------------
// SVG

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const COLORS = { sqlite: "#2b6cb0", postgres: "#dd6b20", baseline: "#718096", grid: "#e2e8f0", text: "#1a202c", muted: "#718096" };

function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export function renderChart(r: BenchResults): string {
  const sqlite = largest(r.engines.find((e) => e.engine === "sqlite"));
  const pg = largest(r.engines.find((e) => e.engine === "postgres"));
  type Bar = { label: string; sqlite?: number; postgres?: number; baseline?: number; note?: string };
  const bars: Bar[] = [];
  for (const b of r.baselines) bars.push({ label: b.label, baseline: b.load.okPerSec });
  for (const t of sqlite?.tools ?? []) {
    const p = pg?.tools.find((x) => x.id === t.id);
    bars.push({ label: t.label, sqlite: t.load?.okPerSec, postgres: p?.load?.okPerSec, note: t.status === "ok" ? undefined : t.status.replace(/_/g, " ") });
  }

  const W = 1160;
  const rowH = 24;
  const top = 70;
  const labelW = 300;
  const barX = 12 + labelW;
  const barW = 330;
  const H = Math.max(460, top + bars.length * rowH + 70);
  const echo = echoReference(r, "sqlite");
  const sdk = bestSdk(r);
  const refs: [string, number | undefined][] = [
    ["½ echo", echo === undefined ? undefined : echo / 2],
    ["3 × SDK", sdk === undefined ? undefined : sdk.okPerSec * 3],
  ];
  const maxV = niceMax(Math.max(1, ...refs.map(([, v]) => v ?? 0), ...bars.flatMap((b) => [b.sqlite ?? 0, b.postgres ?? 0, b.baseline ?? 0])));
  const sx = (v: number) => barX + (v / maxV) * barW;
  const o: string[] = [];
  o.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`,
  );
  o.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  o.push(
    `<text x="12" y="22" font-size="16" font-weight="600" fill="${COLORS.text}">finance-mcp: throughput per tool and latency against history size</text>`,
    `<text x="12" y="40" fill="${COLORS.muted}">${esc(`${r.meta.cpuModel}, ${r.meta.nproc} cores, Node ${r.meta.node}, ${r.settings.connections} connections, ${r.meta.date.slice(0, 10)}, ${r.meta.command}`)}</text>`,
  );

  // Left: bars.
  o.push(
    `<text x="${barX}" y="${top - 12}" font-weight="600" fill="${COLORS.text}">requests per second (${esc(sqlite ? `${fmt(sqlite.mainTransactions)} transactions` : "")})</text>`,
  );
  for (let i = 0; i <= 4; i++) {
    const v = (maxV * i) / 4;
    const x = sx(v);
    o.push(`<line x1="${x}" y1="${top - 4}" x2="${x}" y2="${top + bars.length * rowH}" stroke="${COLORS.grid}"/>`);
    o.push(`<text x="${x}" y="${top + bars.length * rowH + 14}" text-anchor="middle" fill="${COLORS.muted}">${fmt(v)}</text>`);
  }
  bars.forEach((b, i) => {
    const y = top + i * rowH;
    o.push(
      `<text x="${barX - 6}" y="${y + 15}" text-anchor="end" fill="${COLORS.text}">${esc(b.label.length > 46 ? `${b.label.slice(0, 45)}…` : b.label)}</text>`,
    );
    if (b.baseline !== undefined) {
      o.push(`<rect x="${barX}" y="${y + 4}" width="${Math.max(1, sx(b.baseline) - barX)}" height="${rowH - 8}" fill="${COLORS.baseline}"/>`);
      o.push(`<text x="${sx(b.baseline) + 4}" y="${y + 15}" fill="${COLORS.muted}">${fmt(b.baseline)}</text>`);
      return;
    }
    if (b.sqlite === undefined && b.postgres === undefined) {
      o.push(`<text x="${barX + 4}" y="${y + 15}" fill="${COLORS.muted}" font-style="italic">${esc(b.note ?? "not measured")}</text>`);
      return;
    }
    const h = b.postgres !== undefined ? (rowH - 6) / 2 : rowH - 8;
    if (b.sqlite !== undefined) {
      o.push(`<rect x="${barX}" y="${y + 3}" width="${Math.max(1, sx(b.sqlite) - barX)}" height="${h}" fill="${COLORS.sqlite}"/>`);
      o.push(`<text x="${sx(b.sqlite) + 4}" y="${y + 3 + h - 1}" font-size="10" fill="${COLORS.sqlite}">${fmt(b.sqlite)}</text>`);
    }
    if (b.postgres !== undefined) {
      o.push(`<rect x="${barX}" y="${y + 3 + h}" width="${Math.max(1, sx(b.postgres) - barX)}" height="${h}" fill="${COLORS.postgres}"/>`);
      o.push(`<text x="${sx(b.postgres) + 4}" y="${y + 3 + 2 * h - 1}" font-size="10" fill="${COLORS.postgres}">${fmt(b.postgres)}</text>`);
    }
  });
  // The throughput targets as reference lines: half the echo, three times the faster SDK server.
  for (const [label, v] of refs) {
    if (v === undefined || v > maxV) continue;
    o.push(`<line x1="${sx(v)}" y1="${top - 4}" x2="${sx(v)}" y2="${top + bars.length * rowH}" stroke="#c53030" stroke-dasharray="3 3"/>`);
    o.push(`<text x="${sx(v) + 3}" y="${top + 2}" font-size="10" fill="#c53030">${esc(label)}</text>`);
  }
  const legendY = top + bars.length * rowH + 34;
  [
    ["baseline servers", COLORS.baseline],
    ["finance-mcp on SQLite", COLORS.sqlite],
    ["finance-mcp on Postgres", COLORS.postgres],
  ].forEach(([label, color], i) => {
    const x = 12 + i * 190;
    o.push(
      `<rect x="${x}" y="${legendY - 9}" width="10" height="10" fill="${color}"/><text x="${x + 14}" y="${legendY}" fill="${COLORS.text}">${esc(label!)}</text>`,
    );
  });

  // Right: p50 (one request at a time) against history size, log x.
  const px = 790;
  const pw = 340;
  const py = top;
  const ph = 280;
  type Series = { label: string; color: string; dash: string; points: { x: number; y: number }[] };
  const series: Series[] = [];
  for (const e of r.engines) {
    for (const [id, dash] of [
      ["list_transactions", ""],
      ["get_transaction_summary", "6 4"],
    ] as const) {
      const points = e.scales
        .map((s) => ({ x: s.mainTransactions, y: s.tools.find((t) => t.id === id)?.latency?.p50 }))
        .filter((p): p is { x: number; y: number } => p.y !== undefined);
      if (points.length) series.push({ label: `${id} (${e.engine})`, color: e.engine === "sqlite" ? COLORS.sqlite : COLORS.postgres, dash, points });
    }
  }
  o.push(`<text x="${px - 30}" y="${py - 12}" font-weight="600" fill="${COLORS.text}">p50 ms (one request at a time) vs history size</text>`);
  const allX = series.flatMap((s) => s.points.map((p) => p.x));
  const allY = series.flatMap((s) => s.points.map((p) => p.y));
  if (!series.length) {
    o.push(
      `<text x="${px}" y="${py + 20}" fill="${COLORS.muted}" font-style="italic">list_transactions and get_transaction_summary not measured (not implemented)</text>`,
    );
  } else {
    const lx0 = Math.log10(Math.min(...allX));
    const lx1 = Math.log10(Math.max(...allX));
    const span = lx1 - lx0 || 1;
    const ymax = niceMax(Math.max(...allY) * 1.1);
    const X = (x: number) => px + ((Math.log10(x) - lx0) / span) * pw;
    const Y = (y: number) => py + ph - (y / ymax) * ph;
    for (let i = 0; i <= 4; i++) {
      const v = (ymax * i) / 4;
      o.push(
        `<line x1="${px}" y1="${Y(v)}" x2="${px + pw}" y2="${Y(v)}" stroke="${COLORS.grid}"/><text x="${px - 6}" y="${Y(v) + 4}" text-anchor="end" fill="${COLORS.muted}">${fmt(v, Number.isInteger(v) ? 0 : 1)}</text>`,
      );
    }
    for (const x of [...new Set(allX)])
      o.push(
        `<line x1="${X(x)}" y1="${py}" x2="${X(x)}" y2="${py + ph}" stroke="${COLORS.grid}"/><text x="${X(x)}" y="${py + ph + 14}" text-anchor="middle" fill="${COLORS.muted}">${fmt(x)}</text>`,
      );
    o.push(`<text x="${px + pw / 2}" y="${py + ph + 28}" text-anchor="middle" fill="${COLORS.muted}">transactions of the user (log scale)</text>`);
    for (const s of series) {
      const d = s.points.map((p, i) => `${i ? "L" : "M"}${X(p.x).toFixed(1)},${Y(p.y).toFixed(1)}`).join(" ");
      o.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2" ${s.dash ? `stroke-dasharray="${s.dash}"` : ""}/>`);
      for (const p of s.points)
        o.push(
          `<circle cx="${X(p.x).toFixed(1)}" cy="${Y(p.y).toFixed(1)}" r="3" fill="${s.color}"><title>${esc(`${s.label}: ${fmt(p.x)} transactions, p50 ${fmt(p.y, 2)} ms`)}</title></circle>`,
        );
    }
    series.forEach((s, i) => {
      const y = py + ph + 48 + i * 16;
      o.push(
        `<line x1="${px}" y1="${y - 4}" x2="${px + 24}" y2="${y - 4}" stroke="${s.color}" stroke-width="2" ${s.dash ? `stroke-dasharray="${s.dash}"` : ""}/><text x="${px + 30}" y="${y}" fill="${COLORS.text}">${esc(s.label)}</text>`,
      );
    });
  }
  o.push("</svg>");
  return `${o.join("\n")}\n`;
}
