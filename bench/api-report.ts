/**
 * What `bench/api-throughput.ts` prints once its rounds are measured: the table, the rates and shares round by round,
 * and one verdict line per speed target of the `/v1` rows (docs/benchmarks.md). Pure functions of the measured rows
 * (tested in api-report.test.ts); the bench prints the lines they return.
 */
import { figureBesideVerdict, percentile, textTable } from "./common";

/** One scenario's measured requests: the sum of its blocks, with each block's rate and p99 in order. */
export type Result = { scenario: string; requests: number; concurrency: number; seconds: number; latencies: number[]; errors: number; errorSamples: string[]; warmupErrors: number; roundRates: number[]; roundP99s: number[] };

/** The product's rows. */
export const POST_TOOLS = "POST /v1/tools";
export const LIST_TOOLS = "GET /v1/tools?limit=100";
export const WHOAMI = "GET /v1/identity/whoami (empty /v1 route)";
/** The row every share is of. */
export const BASELINE = "GET /constant (bare Next.js)";
/**
 * A second bare app server, identical to the first (same build, same warm-up), measured in the same rounds: its share
 * of the first is how far two servers running the same code differ in this run, the noise any other share carries.
 */
export const CONTROL = "GET /constant (second bare server, control)";
/** The bare POST shown beside POST /v1/tools. */
export const BARE_POST = "POST /echo (bare Next.js, same bodies)";
/** The targets on a share of the bare route's rate: the row's scenario prefix and the least share, in per cent. */
const SHARE_TARGETS = [
  [LIST_TOOLS, 70],
  ["GET /v1/identity/whoami", 90],
  [POST_TOOLS, 35],
] as const;
/** Every `/v1` row's p99 must stay under this, in milliseconds. */
const P99_LIMIT_MS = 50;

/** The row whose scenario starts with `prefix` (absent when it was not measured). */
const rowNamed = (results: Result[], prefix: string) => results.find((r) => r.scenario.startsWith(prefix));
/** The bare route's row, which every share is of. */
const baselineOf = (results: Result[]) => rowNamed(results, BASELINE);
const rateOf = (r: Result) => r.requests / r.seconds;
const p99Of = (r: Result) => percentile([...r.latencies].sort((a, b) => a - b), 99);

/** Requests/s, p50/p90/p99, and the ratio of requests/s to the baseline's (the bare Next.js route). */
export function tableLines(results: Result[]): string[] {
  const header = ["scenario", "requests", "concurrency", "req/s", "vs bare", "p50 ms", "p90 ms", "p99 ms", "errors"];
  const baseline = baselineOf(results);
  const rows = results.map((r) => {
    const sorted = [...r.latencies].sort((a, b) => a - b);
    const ratio = baseline ? `${((100 * rateOf(r)) / rateOf(baseline)).toFixed(1)} %` : "-";
    return [r.scenario, String(r.requests), String(r.concurrency), rateOf(r).toFixed(1), ratio, percentile(sorted, 50).toFixed(2), percentile(sorted, 90).toFixed(2), percentile(sorted, 99).toFixed(2), String(r.errors)];
  });
  return textTable(header, rows, (column) => column > 0);
}

/**
 * Each scenario's requests per second in each round, in order. A row that climbs from round to round while the bare
 * route's does not is a server still warming up (raise --warmup); all rows moving together is the machine drifting.
 * Nothing when the run had one round.
 */
export function roundLines(results: Result[]): string[] {
  if ((results[0]?.roundRates.length ?? 0) <= 1) return [];
  const lines: string[] = [];
  const width = Math.max(...results.map((r) => r.scenario.length));
  lines.push("req/s by round (a row rising while the others stay flat is still warming up: raise --warmup):");
  for (const r of results) {
    const first = r.roundRates[0];
    const last = r.roundRates[r.roundRates.length - 1];
    lines.push(`  ${r.scenario.padEnd(width)}  ${r.roundRates.map((rate) => rate.toFixed(0).padStart(6)).join(" ")}   last/first ${(last / first).toFixed(2)}`);
  }
  lines.push("p99 ms by round:");
  for (const r of results) lines.push(`  ${r.scenario.padEnd(width)}  ${r.roundP99s.map((p99) => p99.toFixed(1).padStart(6)).join(" ")}`);
  // Each round's share of the bare route's rate in the same round: how far the machine moved the shares within this run.
  // The targets are judged on the whole run's rates (the table), not on these.
  const baseline = baselineOf(results);
  if (baseline) {
    lines.push("share of the bare route's rate, round by round (the targets use the whole run's rates, above):");
    for (const r of results.filter((r) => r !== baseline)) {
      // A scenario with fewer requests than rounds has no block in some rounds: its rates do not pair with the baseline's.
      if (r.roundRates.length !== baseline.roundRates.length) {
        lines.push(`  ${r.scenario.padEnd(width)}  (not measured in every round)`);
        continue;
      }
      const shares = r.roundRates.map((rate, i) => (100 * rate) / baseline.roundRates[i]);
      const sorted = [...shares].sort((a, b) => a - b);
      lines.push(`  ${r.scenario.padEnd(width)}  ${shares.map((share) => `${share.toFixed(0)}%`.padStart(6)).join(" ")}   median ${percentile(sorted, 50).toFixed(1)} %, range ${sorted[0].toFixed(0)}-${sorted[sorted.length - 1].toFixed(0)} %`);
    }
  }
  return lines;
}

/** One line per target of the run: the figure, the target, and whether it is met; a target whose rows were not measured has none. */
export function verdicts(results: Result[]): string[] {
  const baseline = baselineOf(results);
  const lines: string[] = [];
  const mark = (met: boolean) => (met ? "met" : "NOT met");
  for (const [prefix, min] of SHARE_TARGETS) {
    const r = rowNamed(results, prefix);
    if (!r || !baseline) continue;
    const share = (100 * rateOf(r)) / rateOf(baseline);
    const met = (figure: number) => figure >= min;
    lines.push(`target: ${prefix} >= ${min} % of the bare route: ${figureBesideVerdict(share, 1, met)} % (${mark(met(share))})`);
  }
  for (const r of results.filter((r) => r.scenario.includes("/v1/"))) {
    const p99 = p99Of(r);
    const met = (figure: number) => figure < P99_LIMIT_MS;
    lines.push(`target: ${r.scenario} p99 < ${P99_LIMIT_MS} ms at concurrency ${r.concurrency}: ${figureBesideVerdict(p99, 2, met)} ms (${mark(met(p99))})`);
  }
  const post = rowNamed(results, POST_TOOLS);
  const barePost = rowNamed(results, BARE_POST);
  if (post && barePost) {
    lines.push(
      `reference (not a target): ${BARE_POST}: ${rateOf(barePost).toFixed(1)} req/s, p99 ${p99Of(barePost).toFixed(2)} ms; POST /v1/tools is ${((100 * rateOf(post)) / rateOf(barePost)).toFixed(1)} % of its rate, its p99 ${(p99Of(post) / p99Of(barePost)).toFixed(2)}× its p99`,
    );
  }
  const control = rowNamed(results, CONTROL);
  if (control && baseline) {
    lines.push(
      `control (not a target): a second bare Next.js server, identical to the first, served ${((100 * rateOf(control)) / rateOf(baseline)).toFixed(1)} % of its rate: two servers running the same code differ this much in this run`,
    );
  }
  return lines;
}

/** Warm-up requests each server has answered so far. */
export type WarmCounts = { product: number; bare: number; control: number };

/**
 * The extra requests that even the servers up after a warm-up pass (none is measured warmer than another): the bare
 * app up to the product's count or the product up to the bare app's (only when both are measured), then the control
 * server up to the bare app's count after that.
 */
export function evenUpPlan(warmed: WarmCounts, measured: { product: boolean; bare: boolean; control: boolean }): { toBare: number; toProduct: number; toControl: number } {
  const both = measured.product && measured.bare;
  const toBare = both ? Math.max(0, warmed.product - warmed.bare) : 0;
  const toProduct = both ? Math.max(0, warmed.bare - warmed.product) : 0;
  const toControl = measured.control ? Math.max(0, warmed.bare + toBare - warmed.control) : 0;
  return { toBare, toProduct, toControl };
}

/**
 * How many of `total` requests part `pass` (0-based) of `passes` takes, as even as whole numbers allow: a warm-up pass's
 * share of the warm-up, a measured round's block of a scenario's requests.
 */
export function passShare(total: number, pass: number, passes: number): number {
  return Math.floor((total * (pass + 1)) / passes) - Math.floor((total * pass) / passes);
}
