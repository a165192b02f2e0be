/**
 * The README's quick start works as written: its shell blocks run with bash and curl against the test server (only
 * the address and the two values a reader pastes, KINDGI_KEY and PROJECT, differ), and every call answers what the
 * `# → <status> <text>` line under it shows (`…` stands for any text; the rest must appear, in order).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kindgi, newTenant, type TestTenant } from "./helpers/api";
import { root } from "./helpers/server";

const README_ADDRESS = "http://127.0.0.1:3000";

/** The shell blocks of the README's Quick start section that talk to the server, in order. */
function quickStartBlocks(): string[] {
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
  const start = readme.indexOf("## Quick start");
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end);
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1]).filter((block) => block.includes("curl "));
}

type Expectation = { status?: number; fragments: string[] };

/** For each curl call of the blocks, in order, the `# →` line after it (if any). */
function expectations(blocks: string[]): Array<Expectation | undefined> {
  const result: Array<Expectation | undefined> = [];
  for (const line of blocks.join("\n").split("\n")) {
    if (/(^|\$\()curl /.test(line.trim())) result.push(undefined);
    const shown = /^# → (?:(\d{3}) )?(.*)$/.exec(line.trim());
    if (shown && result.length) result[result.length - 1] = { status: shown[1] ? Number(shown[1]) : undefined, fragments: shown[2].split("…").filter((part) => part.trim() !== "") };
  }
  return result;
}

/** Each curl call the script made: its arguments, status and body. */
type Call = { args: string[]; status: number; body: string };

/** Runs the blocks in one bash, with `curl` recording every call, and returns the calls in order. */
function replay(blocks: string[], tenant: TestTenant): { calls: Call[]; stdout: string; stderr: string; status: number | null } {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-readme-"));
  const prelude = [
    "set -euo pipefail",
    // Records each call (arguments, status, body) and prints the body as curl would.
    'curl() { local n; n=$(( $(cat "$README_OUT/count" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$README_OUT/count"; printf "%s\\n" "$@" > "$README_OUT/$n.args"; command curl "$@" -o "$README_OUT/$n.body" -w "%{http_code}" > "$README_OUT/$n.status"; cat "$README_OUT/$n.body"; }',
  ].join("\n");
  const script = blocks
    .join("\n")
    .split("\n")
    .filter((line) => !/^export KINDGI_KEY=/.test(line.trim()))
    .join("\n")
    .replaceAll(README_ADDRESS, kindgi().baseUrl);
  const run = spawnSync("bash", ["-c", `${prelude}\n${script}`], {
    env: { ...process.env, README_OUT: out, KINDGI_KEY: tenant.key, PROJECT: tenant.projectId },
    encoding: "utf8",
    timeout: 60_000,
  });
  const count = Number(fs.existsSync(path.join(out, "count")) ? fs.readFileSync(path.join(out, "count"), "utf8") : 0);
  const calls = Array.from({ length: count }, (_, i) => ({
    args: fs.readFileSync(path.join(out, `${i + 1}.args`), "utf8").split("\n").slice(0, -1),
    status: Number(fs.readFileSync(path.join(out, `${i + 1}.status`), "utf8")),
    body: fs.existsSync(path.join(out, `${i + 1}.body`)) ? fs.readFileSync(path.join(out, `${i + 1}.body`), "utf8") : "",
  }));
  fs.rmSync(out, { recursive: true, force: true });
  return { calls, stdout: run.stdout, stderr: run.stderr, status: run.status };
}

/** The text shows every fragment, in order. */
function missingFragment(text: string, fragments: string[]): string | undefined {
  let from = 0;
  for (const fragment of fragments) {
    const at = text.indexOf(fragment, from);
    if (at < 0) return fragment;
    from = at + fragment.length;
  }
  return undefined;
}

describe("the README's quick start", () => {
  let tenant: TestTenant;
  let result: ReturnType<typeof replay>;
  const blocks = quickStartBlocks();

  beforeAll(async () => {
    tenant = await newTenant("quick start");
    result = replay(blocks, tenant);
  });

  afterAll(() => {
    if (result?.status !== 0) console.error(result?.stderr);
  });

  it("runs to the end, every call answering 2xx", () => {
    expect(result.status, result.stderr).toBe(0);
    expect(result.calls.length).toBe(expectations(blocks).length);
    expect(result.calls.length).toBeGreaterThanOrEqual(6);
    for (const call of result.calls) expect(call.status, `${call.args.join(" ")}\n${call.body}`).toBeGreaterThanOrEqual(200);
    for (const call of result.calls) expect(call.status, `${call.args.join(" ")}\n${call.body}`).toBeLessThan(300);
  });

  it("answers what the README shows under each call", () => {
    const shown = expectations(blocks);
    expect(shown.filter(Boolean).length).toBeGreaterThanOrEqual(5);
    shown.forEach((expected, i) => {
      if (!expected) return;
      const call = result.calls[i];
      if (expected.status !== undefined) expect(call.status, call.args.join(" ")).toBe(expected.status);
      expect(missingFragment(call.body, expected.fragments), `${call.args.join(" ")}\n${call.body}`).toBeUndefined();
    });
  });

  it("registers the tool and the agent without warnings, and the clock answers a plain question with the time", () => {
    const body = (predicate: (args: string[]) => boolean) => JSON.parse(result.calls.find((call) => predicate(call.args))!.body);
    const posts = (suffix: string) => (args: string[]) => args.includes("POST") && args.some((arg) => arg.endsWith(suffix));
    expect(body(posts("/v1/tools"))).toEqual({ toolId: "acme.lookup", version: "1.0.0", warnings: [] });
    expect(body(posts("/v1/agents"))).toEqual({ agentId: "acme.clock", version: "1.0.0", warnings: [] });
    const streamed = (args: string[]) => args.includes("Accept: text/event-stream");
    const runs = result.calls.filter((call) => posts("/v1/runs")(call.args) && !streamed(call.args)).map((call) => JSON.parse(call.body));
    expect(runs.map((run) => run.status)).toEqual(["completed", "completed"]);
    expect(runs[0].input.userMessage).toBe("What time is it?");
    const answer = JSON.parse(runs[0].output.slice("[dev-echo: not a real model] ".length));
    expect(answer).toMatchObject({ timezone: "UTC", utcOffset: "+00:00" });
    expect(Math.abs(answer.unixMs - Date.now())).toBeLessThan(120_000);
    expect(JSON.parse(runs[1].output.slice("[dev-echo: not a real model] ".length))).toMatchObject({ timezone: "Europe/Berlin" });
    const stream = result.calls.find((call) => call.args.includes("-sN") && !streamed(call.args))!;
    expect(stream.body).toContain(`id: ${runs[1].id}:1\n`);
    expect(stream.body.trimEnd().split("\n\n").at(-1)).toMatch(/^id: .+\nevent: run-completed\n/);
    // The run started and streamed in one request: its journal, with the model's words between (frames without id).
    const live = result.calls.find((call) => streamed(call.args))!.body.trimEnd().split("\n\n");
    const frames = live.filter((frame) => frame.includes("\ndata: ") || frame.startsWith("data: "));
    expect(frames.filter((frame) => frame.startsWith("event: model-delta\n")).length).toBeGreaterThan(1);
    expect(frames.filter((frame) => frame.startsWith("id: ")).map((frame) => frame.split("\n")[1])).toEqual(["event: run-created", "event: turn-started", "event: model-called", "event: tool-call-started", "event: tool-call-completed", "event: model-called", "event: run-completed"]);
    const answer2 = JSON.parse(frames.at(-1)!.split("\ndata: ")[1]).data.output;
    expect(JSON.parse(answer2.slice("[dev-echo: not a real model] ".length))).toMatchObject({ timezone: "UTC" });
  });
});
