/**
 * The OpenAPI document works with the client generators people use: `openapi-typescript` 7 generates types from
 * `/v1/openapi.json` as the server serves it, and a small program using `openapi-fetch` registers an HTTP tool with a
 * real input schema, an agent and a run. The program type-checks with `tsc --noEmit` (a wrong one does not) and runs
 * against the test server.
 */
import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendJson, startRecordingServer, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import { call, kindgi, newTenant, type TestTenant } from "./helpers/api";
import { root } from "./helpers/server";

let dir: string;
let tenant: TestTenant;
let dictionary: RecordingServer;

/** The program a client author writes: every body below must type-check against the generated types. */
const PROGRAM = `
import createClient from "openapi-fetch";
import type { paths } from "./kindgi-api";

const client = createClient<paths>({ baseUrl: process.env.KINDGI_URL!, headers: { Authorization: \`Bearer \${process.env.KINDGI_KEY}\` } });
const projectId = process.env.KINDGI_PROJECT!;

const tool = await client.POST("/v1/tools", {
  params: { header: { "Idempotency-Key": "client-tool" } },
  body: {
    id: "acme.define",
    description: "Defines an English word",
    version: "1.0.0",
    input: { type: "object", properties: { word: { type: "string", minLength: 1, description: "The word" } }, required: ["word"], additionalProperties: false },
    output: { type: "object", properties: { definition: { type: "string" } }, required: ["definition"] },
    mutating: false,
    effects: [{ kind: "network", resource: "external:dictionary" }],
    metadata: { tags: ["dictionary"], docs: "https://dictionary.example/docs" },
    network: { kind: "allowlist", hosts: [process.env.DICTIONARY_HOST!] },
    spec: { kind: "http", method: "GET", urlTemplate: \`\${process.env.DICTIONARY_URL}/define?word={word}\`, headers: [{ name: "Accept", value: "application/json" }] },
    projectId,
  },
});
if (!tool.data) throw new Error(\`tool: \${JSON.stringify(tool.error)}\`);
const toolId: string = tool.data.toolId;
const toolWarnings: Array<{ path: string; message: string }> = tool.data.warnings;

const agent = await client.POST("/v1/agents", {
  body: {
    id: "acme.dictionary",
    version: "1.0.0",
    name: "Dictionary",
    instructions: "You define words for {{ audience }}.",
    parameters: [{ name: "audience", type: "string", default: "everyone" }],
    capabilities: [{ kind: "llm-inference", needs: [{ feature: "tool-use" }] }],
    tools: [{ id: toolId, version: "^1.0.0" }],
    retrieval: [],
    guardrails: [],
    preferredProvider: "dev-echo",
    projectId,
  },
});
if (!agent.data) throw new Error(\`agent: \${JSON.stringify(agent.error)}\`);

const run = await client.POST("/v1/runs", { body: { agent: { id: agent.data.agentId }, input: { userMessage: "kindgi", parameters: { audience: "engineers" } }, options: { wait: true } } });
if (!run.data) throw new Error(\`run: \${JSON.stringify(run.error)}\`);
const settled = "status" in run.data ? run.data : null;
console.log(JSON.stringify({ toolId, toolWarnings, agentWarnings: agent.data.warnings, status: settled?.status, output: settled?.output, failure: settled?.failure }));
`;

/** The same program with mistakes a type check must catch: a tool without `input`, a run without its agent. */
const WRONG_PROGRAM = `
import createClient from "openapi-fetch";
import type { paths } from "./kindgi-api";

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:1" });
await client.POST("/v1/tools", {
  body: { id: "acme.define", description: "Defines a word", version: "1.0.0", output: { type: "object" }, projectId: "00000000-0000-0000-0000-000000000000" },
});
await client.POST("/v1/runs", { body: { input: { userMessage: 42 } } });
`;

function tsc(): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", dir], { encoding: "utf8", timeout: 120_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-openapi-client-"));
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  fs.writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { target: "ES2022", module: "ESNext", moduleResolution: "Bundler", lib: ["ES2022", "DOM"], types: ["node"], strict: true, noEmit: true, skipLibCheck: true }, include: ["program.ts", "kindgi-api.ts"] }),
  );
  // Every call to the server before the generator runs: spawnSync blocks this process, and a kept-alive connection
  // the server closed meanwhile would fail the next request.
  tenant = await newTenant("openapi client");
  dictionary = await startRecordingServer((request, response) => sendJson(response, 200, { definition: `${new URL(request.url, "http://x").searchParams.get("word")}: a self-hostable agent runtime` }));
  const document = await call("GET", "/v1/openapi.json");
  expect(document.status).toBe(200);
  fs.writeFileSync(path.join(dir, "openapi.json"), document.text);
  const generated = spawnSync(process.execPath, [path.join(root, "node_modules/openapi-typescript/bin/cli.js"), path.join(dir, "openapi.json"), "-o", path.join(dir, "kindgi-api.ts")], { encoding: "utf8", timeout: 120_000 });
  expect(generated.status, `${generated.stdout}${generated.stderr}`).toBe(0);
});

afterAll(async () => {
  await dictionary?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("a client generated by openapi-typescript, used through openapi-fetch", () => {
  it("type-checks a program that registers an HTTP tool with a real input schema, an agent and a run", () => {
    fs.writeFileSync(path.join(dir, "program.ts"), PROGRAM);
    const checked = tsc();
    expect(checked.output).toBe("");
    expect(checked.status).toBe(0);
  });

  it("refuses a program with a missing required field or a wrong type", () => {
    fs.writeFileSync(path.join(dir, "program.ts"), WRONG_PROGRAM);
    const checked = tsc();
    expect(checked.status).not.toBe(0);
    expect(checked.output).toMatch(/program\.ts\(7,\d+\): error TS\d+: .*'input'/s);
    expect(checked.output).toMatch(/program\.ts\(9,\d+\): error TS\d+/);
  });

  it("runs against the server: the tool, the agent and a completed run that called the tool", async () => {
    fs.writeFileSync(path.join(dir, "program.ts"), PROGRAM);
    // Not spawnSync: the dictionary server answers from this process while the program runs.
    const ran = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [path.join(root, "node_modules/tsx/dist/cli.mjs"), path.join(dir, "program.ts")],
        { cwd: dir, encoding: "utf8", timeout: 120_000, env: { ...process.env, KINDGI_URL: kindgi().baseUrl, KINDGI_KEY: tenant.key, KINDGI_PROJECT: tenant.projectId, DICTIONARY_URL: dictionary.origin, DICTIONARY_HOST: dictionary.hostPort } },
        (error, stdout, stderr) => resolve({ status: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
      ),
    );
    expect(ran.status, `${ran.stdout}${ran.stderr}`).toBe(0);
    const result = JSON.parse(ran.stdout.trim().split("\n").at(-1)!);
    expect(result).toMatchObject({ toolId: "acme.define", toolWarnings: [], agentWarnings: [], status: "completed", failure: null });
    expect(result.output).toContain("kindgi: a self-hostable agent runtime");
    expect(dictionary.requests.map((request) => request.url)).toEqual(["/define?word=kindgi"]);
  });
});
