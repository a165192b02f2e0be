/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, a pinned dev dependency) against `/v1/mcp`:
 * every active server scenario in one run of its CLI, with the scenarios we fail on purpose listed, each with its
 * reason, in tests/fixtures/mcp-conformance-expected-failures.yml (the CLI exits non-zero on a failure not listed and
 * on a listed scenario that passes). The scenarios in REQUIRED must pass whatever the file says: their results'
 * checks.json files are read and none may hold a FAILURE check.
 *
 * The project under test holds the suite's fixture tools as pack handlers (tests/fixtures/handlers/conformance, named
 * as the suite calls them) and server-everything behind an MCP endpoint (stdio), on a server of the file's own
 * (NODE_ENV=test runs pack handlers; KINDGI_MCP_STDIO=allow). The suite's client sends no credentials: it talks to a
 * proxy that adds the project key's bearer token and passes everything else on unchanged (Host and Origin included).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, tenantOn, type TestTenant } from "./helpers/api";
import { startBearerProxy, type BearerProxy } from "./helpers/bearer-proxy";
import { root, startOwnServer, type OwnServer } from "./helpers/server";

const CLI = path.join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const EVERYTHING = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const EXPECTED_FAILURES = path.join(root, "tests/fixtures/mcp-conformance-expected-failures.yml");

/** Scenarios that must pass: never silenced through the expected-failures file. */
const REQUIRED = [
  "server-initialize",
  "ping",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-error",
  "tools-call-with-logging",
  "tools-call-with-progress",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

let own: OwnServer;
let tenant: TestTenant;
let proxy: BearerProxy;
let output: string;

const noArguments = { type: "object", properties: {}, additionalProperties: false };

/** The suite's fixture tools, as pack handlers: [tool id, handler file, what else the manifest says]. */
const FIXTURES: Array<[string, string, Record<string, unknown>]> = [
  ["test_simple_text", "simple-text.mjs", { description: "Answers a simple text.", output: { type: "string" } }],
  ["test_error_handling", "error-handling.mjs", { description: "Always fails, to test error reporting.", output: { type: "string" } }],
  ["test_tool_with_logging", "with-logging.mjs", { description: "Logs three lines about 50 ms apart.", output: { type: "string" } }],
  ["test_tool_with_progress", "with-progress.mjs", { description: "Reports progress 0, 50 and 100 of 100 about 50 ms apart.", output: { type: "string" } }],
  ["test_image_content", "content.mjs", { description: "Answers an image.", needsSpec: { config: { kinds: { value: ["image"] } } } }],
  ["test_audio_content", "content.mjs", { description: "Answers an audio clip.", needsSpec: { config: { kinds: { value: ["audio"] } } } }],
  ["test_embedded_resource", "content.mjs", { description: "Answers an embedded resource.", needsSpec: { config: { kinds: { value: ["resource"] } } } }],
  ["test_multiple_content_types", "content.mjs", { description: "Answers text, an image and an embedded resource.", needsSpec: { config: { kinds: { value: ["text", "image", "mixed-resource"] } } } }],
];

async function register(toolId: string, file: string, extra: Record<string, unknown>): Promise<void> {
  const manifest = {
    id: toolId,
    version: "1.0.0",
    input: noArguments,
    output: { type: "object" },
    mutating: false,
    codeArtifactRef: { kind: "filesystem", modulePath: path.join(own.handlers, "conformance", file) },
    ...extra,
  };
  const created = await call("POST", "/v1/tools", { key: tenant.key, baseUrl: own.server.baseUrl, body: { ...manifest, projectId: tenant.projectId } });
  expect(created.status, created.text).toBe(201);
}

beforeAll(async () => {
  own = await startOwnServer({ KINDGI_MCP_STDIO: "allow" });
  tenant = await tenantOn(own.server.baseUrl, own.operatorToken, "mcp conformance");
  for (const [toolId, file, extra] of FIXTURES) await register(toolId, file, extra);
  const endpoint = await call("POST", "/v1/mcp/endpoints", { key: tenant.key, baseUrl: own.server.baseUrl, body: { name: "everything", endpoint: `mcp+stdio://node ${EVERYTHING} stdio`, projectId: tenant.projectId } });
  expect(endpoint.status, endpoint.text).toBe(201);
  proxy = await startBearerProxy(own.server.baseUrl, tenant.key);
  output = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-mcp-conformance-"));
}, 240_000);

afterAll(async () => {
  await proxy?.close();
  await own?.stop();
  if (output) fs.rmSync(output, { recursive: true, force: true });
});

type Check = { id: string; name: string; status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED"; errorMessage?: string; details?: { message?: string } };

/** Each scenario's checks, from the `server-<scenario>-<timestamp>/checks.json` folders the CLI wrote. */
function checksByScenario(folder: string, scenarios: string[]): Map<string, Check[]> {
  const result = new Map<string, Check[]>();
  const folders = fs.readdirSync(folder);
  // Longest names first: `server-sse-polling-…` must not be taken for a scenario named `server-sse`.
  for (const scenario of [...scenarios].sort((a, b) => b.length - a.length)) {
    const match = folders.find((name) => new RegExp(`^server-${scenario}-\\d{4}-\\d{2}-\\d{2}T`).test(name) && !result.has(scenario));
    if (match) result.set(scenario, JSON.parse(fs.readFileSync(path.join(folder, match, "checks.json"), "utf8")) as Check[]);
  }
  return result;
}

function runSuite(url: string, outputDir: string, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "server", "--url", url, "--expected-failures", EXPECTED_FAILURES, "-o", outputDir], { cwd: outputDir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the conformance suite did not finish within ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("the MCP conformance suite against /v1/mcp", () => {
  it("passes every active server scenario but the listed expected failures, and every required one", async () => {
    const url = `${proxy.origin}/v1/mcp?projectId=${tenant.projectId}`;
    const run = await runSuite(url, output, 240_000);
    const listed = /Running \w+ suite \(\d+ scenarios\)/.test(run.stdout);
    const scenarios = [...run.stdout.matchAll(/=== Running scenario: (\S+) ===/g)].map((match) => match[1]);
    const checks = checksByScenario(output, scenarios);
    const report = scenarios.map((scenario) => {
      const failing = (checks.get(scenario) ?? []).filter((check) => check.status === "FAILURE" || check.status === "WARNING");
      return `${failing.length === 0 ? "pass" : "FAIL"} ${scenario}${failing.map((check) => `\n    ${check.status} ${check.name}: ${check.errorMessage ?? check.details?.message ?? ""}`).join("")}`;
    });
    const summary = `${report.join("\n")}\n\n${run.stdout.slice(run.stdout.lastIndexOf("=== SUMMARY ==="))}\n${run.stderr}`;
    expect(listed, summary).toBe(true);
    // The required scenarios, whatever the expected-failures file lists: each ran and none has a FAILURE check.
    const requiredFailures = REQUIRED.flatMap((scenario) => {
      if (!checks.has(scenario)) return [`${scenario}: did not run`];
      return checks.get(scenario)!.filter((check) => check.status === "FAILURE").map((check) => `${scenario}: ${check.name}: ${check.errorMessage ?? ""}`);
    });
    expect(requiredFailures, summary).toEqual([]);
    expect(run.code, summary).toBe(0);
  }, 300_000);
});
