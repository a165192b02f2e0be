import { describe, expect, it } from "vitest";
import { BARE_POST, BASELINE, CONTROL, evenUpPlan, LIST_TOOLS as LIST, passShare, POST_TOOLS as POST, roundLines, tableLines, verdicts, WHOAMI, type Result, type WarmCounts } from "./api-report";

/** A measured row: `requests` over `seconds`, latencies as given, one round per entry of `roundRates`. */
function row(scenario: string, requests: number, seconds: number, options: { latencies?: number[]; roundRates?: number[]; roundP99s?: number[]; errors?: number } = {}): Result {
  const roundRates = options.roundRates ?? [requests / seconds];
  return {
    scenario,
    requests,
    concurrency: 16,
    seconds,
    latencies: options.latencies ?? [10],
    errors: options.errors ?? 0,
    errorSamples: [],
    warmupErrors: 0,
    roundRates,
    roundP99s: options.roundP99s ?? roundRates.map(() => 10),
  };
}

/** `count` latencies: all `base` ms but the slowest `slow` of them, which take `tail` ms. */
function latencies(count: number, base: number, slow: number, tail: number): number[] {
  return Array.from({ length: count }, (_, i) => (i < count - slow ? base : tail));
}


describe("verdicts", () => {
  it("judges each share on the whole run's rates, the target itself counting as met", () => {
    // The bare route: 1,000 req/s. whoami exactly 90 %, the list just under 70 %, POST well over 35 %.
    const lines = verdicts([row(POST, 400, 1), row(LIST, 699, 1), row(WHOAMI, 900, 1), row(BASELINE, 2000, 2)]);
    expect(lines).toContain("target: GET /v1/tools?limit=100 >= 70 % of the bare route: 69.9 % (NOT met)");
    expect(lines).toContain("target: GET /v1/identity/whoami >= 90 % of the bare route: 90.0 % (met)");
    expect(lines).toContain("target: POST /v1/tools >= 35 % of the bare route: 40.0 % (met)");
  });

  it("never shows a figure on the other side of its target than its verdict", () => {
    // whoami at 1,799/2,000 of the bare route's rate: 89.95 %, which rounds to 90.0 but misses; the POST's p99 49.996 ms.
    const lines = verdicts([row(POST, 100, 1, { latencies: latencies(100, 49.996, 1, 80) }), row(WHOAMI, 1799, 1), row(BASELINE, 2000, 1)]);
    expect(lines).toContain("target: GET /v1/identity/whoami >= 90 % of the bare route: 89.95 % (NOT met)");
    expect(lines).toContain("target: POST /v1/tools p99 < 50 ms at concurrency 16: 49.996 ms (met)");
  });

  it("uses the rate over the summed time, not the mean of the rounds' rates", () => {
    // whoami: 900 requests in 1 s (rounds of 1,200 and 600 req/s average 900, but the share is of the whole run).
    const lines = verdicts([row(WHOAMI, 900, 1.2, { roundRates: [1200, 600] }), row(BASELINE, 1000, 1, { roundRates: [1000, 1000] })]);
    expect(lines).toContain("target: GET /v1/identity/whoami >= 90 % of the bare route: 75.0 % (NOT met)");
  });

  it("gives every /v1 row a p99 verdict under 50 ms, strictly, and none to the bare rows", () => {
    // 100 latencies: the p99 (nearest rank) is the 99th smallest.
    const lines = verdicts([
      row(POST, 100, 1, { latencies: latencies(100, 20, 2, 50) }),
      row(WHOAMI, 100, 1, { latencies: latencies(100, 20, 1, 500) }),
      row(BARE_POST, 100, 1, { latencies: latencies(100, 20, 2, 80) }),
      row(BASELINE, 100, 1, { latencies: latencies(100, 20, 2, 90) }),
    ]);
    expect(lines).toContain("target: POST /v1/tools p99 < 50 ms at concurrency 16: 50.00 ms (NOT met)");
    expect(lines).toContain("target: GET /v1/identity/whoami (empty /v1 route) p99 < 50 ms at concurrency 16: 20.00 ms (met)");
    expect(lines.filter((line) => line.includes("p99 <"))).toHaveLength(2);
  });

  it("sets POST /v1/tools beside the bare POST as a reference, not a target", () => {
    const lines = verdicts([row(POST, 500, 1, { latencies: latencies(100, 30, 1, 40) }), row(BARE_POST, 1000, 1, { latencies: latencies(100, 20, 1, 25) }), row(BASELINE, 1000, 1)]);
    expect(lines.at(-1)).toBe(`reference (not a target): ${BARE_POST}: 1000.0 req/s, p99 20.00 ms; POST /v1/tools is 50.0 % of its rate, its p99 1.50× its p99`);
    expect(lines.filter((line) => line.startsWith("target:") && line.includes("POST /echo"))).toEqual([]);
  });

  it("shows the second bare server's share of the first as the run's noise, neither a target nor the row shares are of", () => {
    // The control server answered 940 req/s beside the bare route's 1,000: whoami's 930 is judged against the first.
    const lines = verdicts([row(WHOAMI, 930, 1), row(BASELINE, 1000, 1), row(CONTROL, 940, 1)]);
    expect(lines).toContain("target: GET /v1/identity/whoami >= 90 % of the bare route: 93.0 % (met)");
    expect(lines.at(-1)).toBe("control (not a target): a second bare Next.js server, identical to the first, served 94.0 % of its rate: two servers running the same code differ this much in this run");
    expect(lines.filter((line) => line.startsWith("target:") && line.includes("second bare server"))).toEqual([]);
    // Without the first bare server there is nothing to compare the control with.
    expect(verdicts([row(WHOAMI, 930, 1), row(CONTROL, 940, 1)]).some((line) => line.startsWith("control"))).toBe(false);
  });

  it("has no share verdict for a row or a bare route that was not measured", () => {
    expect(verdicts([row(WHOAMI, 900, 1), row(BASELINE, 1000, 1)]).filter((line) => line.includes("% of the bare route"))).toEqual([
      "target: GET /v1/identity/whoami >= 90 % of the bare route: 90.0 % (met)",
    ]);
    // Without the bare route only the p99s can be judged.
    expect(verdicts([row(POST, 100, 1), row(WHOAMI, 100, 1)]).every((line) => line.includes("p99 <"))).toBe(true);
  });
});

describe("tableLines", () => {
  it("prints each row's rate and its share of the bare route's, with the latencies' percentiles", () => {
    const [header, rule, whoami, bare] = tableLines([row(WHOAMI, 820, 1, { latencies: latencies(100, 12, 1, 30), errors: 0 }), row(BASELINE, 2000, 2, { latencies: [5, 6, 7] })]);
    expect(header.split(/\s{2,}/)).toEqual(["scenario", "requests", "concurrency", "req/s", "vs bare", "p50 ms", "p90 ms", "p99 ms", "errors"]);
    expect(rule).toMatch(/^-+( {2}-+){8}$/);
    expect(whoami.split(/\s{2,}/)).toEqual([WHOAMI, "820", "16", "820.0", "82.0 %", "12.00", "12.00", "12.00", "0"]);
    expect(bare.split(/\s{2,}/)).toEqual([BASELINE, "2000", "16", "1000.0", "100.0 %", "6.00", "7.00", "7.00", "0"]);
  });

  it("has no share without the bare route", () => {
    expect(tableLines([row(WHOAMI, 100, 1)])[2].split(/\s{2,}/)[4]).toBe("-");
  });
});

describe("roundLines", () => {
  it("pairs each round's rate with the bare route's in the same round", () => {
    // The machine sped up in round 2: both servers by a quarter, so whoami's share did not move.
    const lines = roundLines([row(WHOAMI, 1800, 2, { roundRates: [800, 1000] }), row(BASELINE, 2250, 2, { roundRates: [1000, 1250] })]);
    const shares = lines.slice(lines.findIndex((line) => line.startsWith("share of the bare route's rate")) + 1);
    expect(shares).toEqual([`  ${WHOAMI}  ${"80%".padStart(6)} ${"80%".padStart(6)}   median 80.0 %, range 80-80 %`]);
    expect(lines.find((line) => line.includes(WHOAMI) && line.includes("last/first"))).toContain("last/first 1.25");
  });

  it("does not pair a row measured in fewer rounds than the bare route", () => {
    const lines = roundLines([row(POST, 2, 1, { roundRates: [1, 1] }), row(BASELINE, 3000, 3, { roundRates: [1000, 1000, 1000] })]);
    const shares = lines.slice(lines.findIndex((line) => line.startsWith("share of the bare route's rate")) + 1);
    expect(shares).toEqual([`  ${POST.padEnd(BASELINE.length)}  (not measured in every round)`]);
  });

  it("prints nothing for a run of one round", () => {
    expect(roundLines([row(WHOAMI, 100, 1), row(BASELINE, 100, 1)])).toEqual([]);
  });
});

describe("the warm-up passes", () => {
  const all = { product: true, bare: true, control: true };

  it("split a warm-up into passes that add up to it, as even as whole numbers allow", () => {
    expect([0, 1, 2, 3].map((pass) => passShare(2000, pass, 4))).toEqual([500, 500, 500, 500]);
    expect([0, 1, 2, 3].map((pass) => passShare(10, pass, 4))).toEqual([2, 3, 2, 3]);
    expect([0, 1].map((pass) => passShare(2, pass, 2))).toEqual([1, 1]);
    expect(passShare(0, 0, 1)).toBe(0);
  });

  it("even the bare app up to the product, then the control server up to the bare app", () => {
    // A first pass of 500 per scenario: the product's three (and its tenant and list probe), the bare app's two, the control's one.
    expect(evenUpPlan({ product: 1502, bare: 1000, control: 500 }, all)).toEqual({ toBare: 502, toProduct: 0, toControl: 1002 });
    // The product behind (only whoami measured against both bare scenarios): the product is evened up instead.
    expect(evenUpPlan({ product: 501, bare: 1000, control: 500 }, all)).toEqual({ toBare: 0, toProduct: 499, toControl: 500 });
  });

  it("bring every server to one count after each pass, pass after pass", () => {
    const warmed: WarmCounts = { product: 1, bare: 0, control: 0 };
    for (let pass = 0; pass < 4; pass++) {
      const share = passShare(2000, pass, 4);
      warmed.product += 3 * share + (pass === 0 ? 1 : 0);
      warmed.bare += 2 * share;
      warmed.control += share;
      const plan = evenUpPlan(warmed, all);
      warmed.bare += plan.toBare;
      warmed.product += plan.toProduct;
      warmed.control += plan.toControl;
      expect(warmed.bare).toBe(warmed.product);
      expect(warmed.control).toBe(warmed.bare);
    }
    expect(warmed).toEqual({ product: 6002, bare: 6002, control: 6002 });
  });

  it("even up only the servers measured", () => {
    expect(evenUpPlan({ product: 1502, bare: 0, control: 0 }, { product: true, bare: false, control: false })).toEqual({ toBare: 0, toProduct: 0, toControl: 0 });
    expect(evenUpPlan({ product: 1, bare: 1000, control: 500 }, { product: false, bare: true, control: true })).toEqual({ toBare: 0, toProduct: 0, toControl: 500 });
    expect(evenUpPlan({ product: 1502, bare: 1000, control: 0 }, { product: true, bare: true, control: false })).toEqual({ toBare: 502, toProduct: 0, toControl: 0 });
  });
});
