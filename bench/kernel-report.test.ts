import { describe, expect, it } from "vitest";
import { againstKernelLines, figures, httpLines, quarterLines, ratioOf, tableLines, unavailable, verdicts, type Row } from "./kernel-report";

/** A measured row: `turns` turns in `seconds`, each taking the latencies given (repeated to `turns`). */
function row(id: string, turns: number, seconds: number, latency: number | number[], options: { concurrency?: number; failures?: number } = {}): Row {
  const pattern = Array.isArray(latency) ? latency : [latency];
  return {
    id,
    label: `(${id}) row`,
    available: true,
    turns,
    concurrency: options.concurrency ?? 1,
    failures: options.failures ?? 0,
    warmupFailures: 0,
    seconds,
    latencies: Array.from({ length: turns }, (_, i) => pattern[i % pattern.length]),
    failureSamples: [],
    note: "",
  };
}

/** A PostgreSQL run that meets every target by a margin. */
const passing = () => [
  row("a1", 100, 0.5, 5),
  row("h1", 100, 0.2, 2),
  row("a8", 100, 0.25, 20, { concurrency: 8 }),
  row("h8", 100, 0.1, 8, { concurrency: 8 }),
  row("b", 100, 0.2, 2),
  row("f", 100, 0.15, 1.5),
  row("b50", 1000, 2, 100, { concurrency: 50 }),
];

describe("verdicts", () => {
  it("judges every target of a PostgreSQL run", () => {
    expect(verdicts(passing(), "postgresql")).toEqual([
      "target: (b) kernel in-process p50 <= 3 ms: 2.000 ms (met)",
      "target: (b)/(f) p50 ratio <= 1.5×: 1.33× (met)",
      "target: (b50) >= 400 turns/s with 50 in flight: 500.0 (met)",
      "target: (a) over HTTP one at a time >= 120 turns/s: 200.0 (met)",
      "target: (a) over HTTP at concurrency 8 >= 250 turns/s: 400.0 (met)",
    ]);
  });

  it("counts a figure equal to its target as met and one past it as not", () => {
    const atTarget = [row("b", 10, 1, 3), row("f", 10, 1, 2), row("b50", 400, 1, 1, { concurrency: 50 }), row("a1", 120, 1, 1), row("a8", 250, 1, 1, { concurrency: 8 })];
    expect(verdicts(atTarget, "postgresql").every((line) => line.endsWith("(met)"))).toBe(true);
    const past = [row("b", 10, 1, 3.001), row("f", 10, 1, 2), row("b50", 399, 1, 1, { concurrency: 50 }), row("a1", 119, 1, 1), row("a8", 249, 1, 1, { concurrency: 8 })];
    const lines = verdicts(past, "postgresql");
    expect(lines).toHaveLength(5);
    expect(lines.every((line) => line.endsWith("(NOT met)"))).toBe(true);
    // 1.5005 would round to 1.50, which meets the target: it prints with the digits that show why it misses.
    expect(lines[1]).toBe("target: (b)/(f) p50 ratio <= 1.5×: 1.5005× (NOT met)");
  });

  it("judges the ratio on the p50s, not on the means", () => {
    // (b): half its turns at 1 ms, half at 10 ms: p50 1 ms (nearest rank), mean 5.5 ms; (f) 1 ms throughout.
    expect(ratioOf([row("b", 100, 1, [1, 10]), row("f", 100, 1, 1)])).toBe(1);
  });

  it("gives a row with failed turns no passing verdict", () => {
    const rows = passing().map((r) => (r.id === "a1" || r.id === "f" ? { ...r, failures: 2 } : r));
    const lines = verdicts(rows, "postgresql");
    expect(lines).toContain("target: (a) over HTTP one at a time >= 120 turns/s: 200.0 (NOT met: 2 failed turns)");
    expect(lines).toContain("target: (b)/(f) p50 ratio <= 1.5×: 1.33× (NOT met: 2 failed turns)");
  });

  it("leaves the throughput targets to PostgreSQL", () => {
    const lines = verdicts(passing(), "pglite");
    expect(lines).toEqual([
      "target: (b) kernel in-process p50 <= 3 ms: 2.000 ms (met)",
      "target: (b)/(f) p50 ratio <= 1.5×: 1.33× (met)",
      "(the targets for (b50) and (a) are PostgreSQL's: --backend pg judges them)",
    ]);
  });

  it("judges the in-flight targets only at the concurrency they name", () => {
    const rows = passing().map((r) => (r.id === "a8" ? { ...r, concurrency: 4 } : r.id === "b50" ? { ...r, concurrency: 20 } : r));
    const lines = verdicts(rows, "postgresql");
    expect(lines).toContain("(the target for (b50) is at 50 in flight; this run had 20: BENCH_IN_FLIGHT=50 judges it)");
    expect(lines).toContain("(the target for (a) in flight is at concurrency 8; this run had 4: BENCH_CONCURRENCY=8 judges it)");
    expect(lines.filter((line) => line.startsWith("target:"))).toHaveLength(3);
  });

  it("judges only the rows a run measured", () => {
    expect(verdicts([row("c", 10, 1, 0.3)], "postgresql")).toEqual([]);
    expect(verdicts([row("b", 10, 1, 2), unavailable("f", "(f) floor", "not measured")], "pglite")).toEqual(["target: (b) kernel in-process p50 <= 3 ms: 2.000 ms (met)"]);
  });
});

describe("the printed figures", () => {
  it("prints each quarter's p50 and ratio in the order the turns ran", () => {
    // (b) warms up: 4 ms in its first quarter, then 2 ms; (f) 1 ms throughout.
    const b = row("b", 8, 1, 2);
    b.latencies = [4, 4, 2, 2, 2, 2, 2, 2];
    const lines = quarterLines([b, row("f", 8, 1, 1)]);
    expect(lines.at(-1)?.split(/\s+/).slice(-4)).toEqual(["4.00×", "2.00×", "2.00×", "2.00×"]);
    // Without (f) there is no ratio to print.
    expect(quarterLines([b, unavailable("f", "(f) floor", "not measured")])).toEqual([]);
  });

  it("sets (a) beside (b) + (h) one at a time, and as a share of (h)'s rate in flight", () => {
    expect(httpLines(passing())).toEqual([
      "HTTP one at a time, p50: (a) 5.000 ms against (b) 2.000 ms + (h) 2.000 ms = 4.000 ms",
      "HTTP 8 at once: (a) 400.0 turns/s, 40.0 % of (h)'s 1000.0 requests/s",
    ]);
    // A run without (b) (--rows a,h) sets (a) beside (h) alone.
    expect(httpLines(passing().filter((r) => r.id !== "b"))[0]).toBe("HTTP one at a time, p50: (a) 5.000 ms against (h) 2.000 ms");
  });

  it("tabulates measured and unavailable rows, and gives the JSON line rounded figures", () => {
    const lines = tableLines([row("b", 100, 0.2, 2), unavailable("c", "(c) peer", "bench/node_modules missing")]);
    expect(lines[2].split(/\s{2,}/)).toEqual(["(b) row", "100", "1", "0", "500.0", "2.000", "2.000", "2.000"]);
    expect(lines[3].split(/\s{2,}/)).toEqual(["(c) peer", "-", "-", "-", "-", "-", "-", "-", "bench/node_modules missing"]);
    expect(figures(row("b", 3, 0.0123456, 1.23456))).toMatchObject({ turnsPerSecond: 243, p50Ms: 1.235, p95Ms: 1.235, seconds: 0.012 });
  });

  it("sets every sequential in-process row against (b), by p50 and p95", () => {
    // (b): 95 turns at 2 ms and 5 at 4 ms (p50 2, p95 2); (g): 90 at 10 ms and 10 at 20 ms (p50 10, p95 20).
    const b = row("b", 100, 1, 2);
    b.latencies = [...Array(95).fill(2), ...Array(5).fill(4)];
    const g = row("g", 100, 1, 10);
    g.latencies = [...Array(90).fill(10), ...Array(10).fill(20)];
    const lines = againstKernelLines([b, row("b50", 100, 1, 50, { concurrency: 50 }), row("m", 100, 1, 0.5), g, unavailable("d", "(d) peer", "not installed"), { ...row("f", 100, 1, 1), failures: 1 }]);
    expect(lines[0]).toBe("against (b) (p50 2.000 ms, p95 2.000 ms), sequential turns:");
    // In the printed order (f, m, c, g, d), measured rows only; (b50) is not sequential.
    expect(lines.slice(1).map((line) => line.trim().split(/\s{2,}/))).toEqual([
      ["(f) row", "p50", "0.50×", "p95", "0.50×", "(1 failed turns: not valid)"],
      ["(m) row", "p50", "0.25×", "p95", "0.25×"],
      ["(g) row", "p50", "5.00×", "p95", "10.00×"],
    ]);
    expect(againstKernelLines([row("g", 10, 1, 10)])).toEqual([]);
  });
});
