/**
 * What `bench/kernel-turns.ts` prints once its rows are measured: the table, the (b)/(f) ratio and its quarters, every
 * other sequential in-process row against (b), the HTTP comparison with the bare route, one verdict line per speed
 * target of the kernel rows (docs/benchmarks.md), and
 * the JSON line's figures. Pure functions of the measured rows (tested in kernel-report.test.ts); the bench prints what
 * they return.
 */
import { figureBesideVerdict, percentile, textTable } from "./common";

export type Row = {
  id: string;
  label: string;
  available: boolean;
  /** Why the row has no figures (only when not available). */
  reason?: string;
  turns: number;
  concurrency: number;
  failures: number;
  warmupFailures: number;
  seconds: number;
  latencies: number[];
  failureSamples: string[];
  note: string;
};

export type Backend = "pglite" | "postgresql";

/** The targets: (b)'s p50 and the (b)/(f) ratio on both backends; (b50) and (a) on PostgreSQL. */
const KERNEL_TARGETS = { p50Ms: 3, ratio: 1.5, inFlight: 50, inFlightTurnsPerSecond: 400, httpSequentialTurnsPerSecond: 120, httpConcurrentTurnsPerSecond: 250, httpConcurrency: 8 } as const;

export const unavailable = (id: string, label: string, reason: string): Row => ({ id, label, available: false, reason, turns: 0, concurrency: 0, failures: 0, warmupFailures: 0, seconds: 0, latencies: [], failureSamples: [], note: "" });

/** Throughput and latency percentiles of a measured row (ms; NaN without turns). */
function stats(row: Row): { turnsPerSecond: number; p50: number; p95: number; p99: number } {
  const sorted = [...row.latencies].sort((a, b) => a - b);
  return { turnsPerSecond: row.turns / row.seconds, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
}

/** The measured row with this id (absent when it was not run or not available). */
const measured = (rows: Row[], id: string) => rows.find((row) => row.id === id && row.available && row.turns > 0);

/** p50 of (b) over p50 of (f); null unless both were measured. */
export function ratioOf(rows: Row[]): number | null {
  const [b, f] = [measured(rows, "b"), measured(rows, "f")];
  return b && f ? stats(b).p50 / stats(f).p50 : null;
}

/**
 * The p50 of (b) and (f) in each quarter of their measured turns, in the order they ran, and the ratio per quarter: a
 * row still falling from one quarter to the next was measured before it was warm (raise BENCH_IN_PROCESS_WARMUP).
 * Nothing unless both rows were measured.
 */
export function quarterLines(rows: Row[]): string[] {
  const [b, f] = [measured(rows, "b"), measured(rows, "f")];
  if (!b || !f) return [];
  const quarters = (row: Row) =>
    [0, 1, 2, 3].map((q) => {
      const part = row.latencies.slice(Math.floor((q * row.latencies.length) / 4), Math.floor(((q + 1) * row.latencies.length) / 4));
      return percentile(part.sort((x, y) => x - y), 50);
    });
  const [qb, qf] = [quarters(b), quarters(f)];
  return [
    `p50 ms by quarter of the measured turns (a row still falling is still warming up):`,
    `  ${b.label.padEnd(36)} ${qb.map((v) => v.toFixed(3).padStart(7)).join(" ")}`,
    `  ${f.label.padEnd(36)} ${qf.map((v) => v.toFixed(3).padStart(7)).join(" ")}`,
    `  ${"ratio (b)/(f)".padEnd(36)} ${qb.map((v, i) => `${(v / qf[i]).toFixed(2)}×`.padStart(7)).join(" ")}`,
  ];
}

/** A row as it goes into the JSON line. */
export function figures(row: Row) {
  if (!row.available) return { id: row.id, label: row.label, available: false, reason: row.reason };
  const { turnsPerSecond, p50, p95, p99 } = stats(row);
  const round = (n: number, digits: number) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : null);
  return {
    id: row.id,
    label: row.label,
    available: true,
    turns: row.turns,
    concurrency: row.concurrency,
    failures: row.failures,
    warmupFailures: row.warmupFailures,
    seconds: round(row.seconds, 3),
    turnsPerSecond: round(turnsPerSecond, 1),
    p50Ms: round(p50, 3),
    p95Ms: round(p95, 3),
    p99Ms: round(p99, 3),
    note: row.note,
  };
}

export function tableLines(rows: Row[]): string[] {
  const header = ["row", "turns", "conc", "failures", "turns/s", "p50 ms", "p95 ms", "p99 ms", "note"];
  const cells = rows.map((row) => {
    if (!row.available) return [row.label, "-", "-", "-", "-", "-", "-", "-", row.reason ?? ""];
    const { turnsPerSecond, p50, p95, p99 } = stats(row);
    return [row.label, String(row.turns), String(row.concurrency), String(row.failures), turnsPerSecond.toFixed(1), p50.toFixed(3), p95.toFixed(3), p99.toFixed(3), row.note];
  });
  return textTable(header, cells, (column) => column >= 1 && column <= 7);
}

/** The sequential in-process rows set against (b), in the order they are printed: the floors, then the peers. */
const AGAINST_B = ["f", "m", "c", "g", "d"];

/**
 * Each sequential in-process row other than (b) against (b): its p50 and p95 as multiples of (b)'s (above 1×: slower
 * than our kernel's turn). Nothing without a measured (b); a row not measured is left out.
 */
export function againstKernelLines(rows: Row[]): string[] {
  const b = measured(rows, "b");
  if (!b) return [];
  const base = stats(b);
  const others = AGAINST_B.map((id) => measured(rows, id)).filter((row): row is Row => row !== undefined);
  if (others.length === 0) return [];
  const width = Math.max(...others.map((row) => row.label.length));
  return [
    `against (b) (p50 ${base.p50.toFixed(3)} ms, p95 ${base.p95.toFixed(3)} ms), sequential turns:`,
    ...others.map((row) => {
      const { p50, p95 } = stats(row);
      return `  ${row.label.padEnd(width)}  p50 ${(p50 / base.p50).toFixed(2).padStart(6)}×   p95 ${(p95 / base.p95).toFixed(2).padStart(6)}×${row.failures ? `  (${row.failures} failed turns: not valid)` : ""}`;
    }),
  ];
}

/** (a) beside its HTTP floor: one at a time against (b) + (h), and at concurrency as a share of (h)'s rate. */
export function httpLines(rows: Row[]): string[] {
  const lines: string[] = [];
  const [b, a1, h1, a8, h8] = ["b", "a1", "h1", "a8", "h8"].map((id) => measured(rows, id));
  if (a1 && h1) {
    const h = stats(h1).p50;
    const inProcess = b ? stats(b).p50 : null;
    const parts = inProcess !== null ? ` against (b) ${inProcess.toFixed(3)} ms + (h) ${h.toFixed(3)} ms = ${(inProcess + h).toFixed(3)} ms` : ` against (h) ${h.toFixed(3)} ms`;
    lines.push(`HTTP one at a time, p50: (a) ${stats(a1).p50.toFixed(3)} ms${parts}`);
  }
  if (a8 && h8) {
    const [a, h] = [stats(a8).turnsPerSecond, stats(h8).turnsPerSecond];
    lines.push(`HTTP ${a8.concurrency} at once: (a) ${a.toFixed(1)} turns/s, ${((100 * a) / h).toFixed(1)} % of (h)'s ${h.toFixed(1)} requests/s`);
  }
  return lines;
}

/**
 * One line per target this run can judge: the figure, the target, and whether it is met. A row with failed turns has
 * no valid figures: its target is not met. The throughput targets are PostgreSQL's; on PGlite one line says so.
 */
export function verdicts(rows: Row[], backend: Backend): string[] {
  const T = KERNEL_TARGETS;
  const lines: string[] = [];
  const judged = (failures: number, met: boolean) => (failures > 0 ? `NOT met: ${failures} failed turns` : met ? "met" : "NOT met");
  const b = measured(rows, "b");
  if (b) {
    const { p50 } = stats(b);
    const met = (figure: number) => figure <= T.p50Ms;
    lines.push(`target: (b) kernel in-process p50 <= ${T.p50Ms} ms: ${figureBesideVerdict(p50, 3, met)} ms (${judged(b.failures, met(p50))})`);
  }
  const ratio = ratioOf(rows);
  const f = measured(rows, "f");
  if (b && f && ratio !== null) {
    const met = (figure: number) => figure <= T.ratio;
    lines.push(`target: (b)/(f) p50 ratio <= ${T.ratio}×: ${figureBesideVerdict(ratio, 2, met)}× (${judged(b.failures + f.failures, met(ratio))})`);
  }
  if (backend !== "postgresql") {
    if (rows.some((row) => ["b50", "a1", "a8"].includes(row.id) && row.available)) lines.push(`(the targets for (b50) and (a) are PostgreSQL's: --backend pg judges them)`);
    return lines;
  }
  const b50 = measured(rows, "b50");
  if (b50 && b50.concurrency === T.inFlight) {
    const rate = stats(b50).turnsPerSecond;
    const met = (figure: number) => figure >= T.inFlightTurnsPerSecond;
    lines.push(`target: (b50) >= ${T.inFlightTurnsPerSecond} turns/s with ${T.inFlight} in flight: ${figureBesideVerdict(rate, 1, met)} (${judged(b50.failures, met(rate))})`);
  } else if (b50) lines.push(`(the target for (b50) is at ${T.inFlight} in flight; this run had ${b50.concurrency}: BENCH_IN_FLIGHT=${T.inFlight} judges it)`);
  const a1 = measured(rows, "a1");
  if (a1) {
    const rate = stats(a1).turnsPerSecond;
    const met = (figure: number) => figure >= T.httpSequentialTurnsPerSecond;
    lines.push(`target: (a) over HTTP one at a time >= ${T.httpSequentialTurnsPerSecond} turns/s: ${figureBesideVerdict(rate, 1, met)} (${judged(a1.failures, met(rate))})`);
  }
  const a8 = measured(rows, "a8");
  if (a8 && a8.concurrency === T.httpConcurrency) {
    const rate = stats(a8).turnsPerSecond;
    const met = (figure: number) => figure >= T.httpConcurrentTurnsPerSecond;
    lines.push(`target: (a) over HTTP at concurrency ${T.httpConcurrency} >= ${T.httpConcurrentTurnsPerSecond} turns/s: ${figureBesideVerdict(rate, 1, met)} (${judged(a8.failures, met(rate))})`);
  } else if (a8) lines.push(`(the target for (a) in flight is at concurrency ${T.httpConcurrency}; this run had ${a8.concurrency}: BENCH_CONCURRENCY=${T.httpConcurrency} judges it)`);
  return lines;
}
