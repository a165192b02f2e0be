/**
 * Pack handlers shipped as OCI artifacts, end to end on a production start (`NODE_ENV=production`, no
 * KINDGI_ALLOW_FILESYSTEM_HANDLERS): Debian's docker-registry on 127.0.0.1 with bearer-token auth, a bundle built and
 * pushed in the test (umoci + skopeo, as a team's pipeline does), registered by tag and run at every sandbox level; the
 * tag repointed to new bytes while the registered version keeps running the old ones; a pausing oci tool with an
 * approval; a tampered blob, a missing artifact, an oversized one and a private registry on a server without the
 * setting each failing cleanly with nothing run; and the cache serving calls once the registry is gone.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newTenant, tenantOn, type TestTenant } from "./helpers/api";
import { script } from "./helpers/kernel";
import { pushBundle, startRegistry, tamperBlob, type TestRegistry } from "./helpers/registry";
import { startOwnServer, type OwnServer } from "./helpers/server";
import { startRecordingServer, sendJson, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";

let registry: TestRegistry;
let own: OwnServer;
let tenant: TestTenant;
let receiver: RecordingServer;
let cacheDir: string;
const handed: { waitId: string; url: string; token: string }[] = [];

// The bundle: a handler importing a module of its own, and a pausing handler that hands its wait to another system.
const bundle = (word: string) => ({
  "pack/handler.mjs": `import { shout } from "./lib/shout.mjs";\nexport default async function (input, context) {\n  context.log("running ${word}");\n  return { said: shout(input.text), word: ${JSON.stringify(word)} };\n}\n`,
  "pack/lib/shout.mjs": `export const shout = (text) => text.toUpperCase() + "!";\n`,
  "pack/pauser.mjs":
    `export default async function (input, context) {\n  const pause = context.pause();\n` +
    `  const answer = await context.fetch(input.notify, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ waitId: pause.waitId, url: pause.url, token: pause.token }) });\n` +
    `  if (!answer.ok) throw new Error("the other system answered " + answer.status);\n  return pause;\n}\n`,
});

let v1: { digest: string };

beforeAll(async () => {
  registry = await startRegistry({ auth: "token" });
  v1 = await pushBundle(registry, "acme/tools", "1.0.0", bundle("one"));
  receiver = await startRecordingServer((request, response) => {
    if (request.url === "/notify") handed.push(JSON.parse(request.body));
    sendJson(response, 200, { ok: true });
  });
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-artifact-cache-"));
  own = await startOwnServer({ NODE_ENV: "production", KINDGI_OCI_ALLOW_PRIVATE_REGISTRIES: "1", KINDGI_ARTIFACT_CACHE: cacheDir, KINDGI_ARTIFACT_MAX_MB: "1" });
  tenant = await tenantOn(own.server.baseUrl, own.operatorToken, "oci artifacts");
  expect((await api("POST", "/v1/secrets", { name: `registry.${registry.host.replace(":", "_")}`, value: `${registry.username}:${registry.password}` })).status).toBe(201);
}, 240_000);

afterAll(async () => {
  await own?.stop();
  await registry?.close();
  await receiver?.close();
  if (cacheDir) fs.rmSync(cacheDir, { recursive: true, force: true });
});

const api = (method: string, urlPath: string, body?: unknown, on: { key: string; baseUrl?: string } = { key: tenant.key, baseUrl: own.server.baseUrl }) => call(method, urlPath, { key: on.key, body, baseUrl: on.baseUrl });

let counter = 0;
function ociTool(imageRef: string, overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    id: `acme.oci-${counter}-${Date.now().toString(36)}`,
    version: "1.0.0",
    description: "Shouts a text back, from an OCI bundle.",
    input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    output: { type: "object" },
    mutating: false,
    network: { kind: "none" },
    codeArtifactRef: { kind: "oci", imageRef, modulePath: "/pack/handler.mjs", artifactVersion: "1.0.0" },
    ...overrides,
  };
}

async function register(manifest: Record<string, unknown>, on = { key: tenant.key, baseUrl: own.server.baseUrl, projectId: "" }) {
  return call("POST", "/v1/tools", { key: on.key, baseUrl: on.baseUrl, body: { ...manifest, projectId: on.projectId || tenant.projectId } });
}

async function invoke(toolId: string, version: string, args: Record<string, unknown>, on: { key: string; baseUrl?: string } = { key: tenant.key, baseUrl: own.server.baseUrl }) {
  const response = await call("POST", `/v1/tools/${toolId}/versions/${version}/invoke`, { key: on.key, baseUrl: on.baseUrl, body: { arguments: args } });
  expect([200, 201], response.text).toContain(response.status);
  return response.body;
}

async function journalOf(runId: string, on: { key: string; baseUrl?: string } = { key: tenant.key, baseUrl: own.server.baseUrl }): Promise<any[]> {
  const response = await call("GET", `/v1/runs/${runId}/journal?limit=1000`, on);
  expect(response.status).toBe(200);
  return response.body.data;
}

const bundlesIn = (dir: string) => (fs.existsSync(path.join(dir, "bundles", "sha256")) ? fs.readdirSync(path.join(dir, "bundles", "sha256")) : []);

describe("an oci handler on a production server", () => {
  it.each(["none", "context-isolated", "strict"] as const)("registered by tag, records the digest and runs at sandbox %s", async (sandbox) => {
    const manifest = ociTool(`${registry.host}/acme/tools:1.0.0`, { sandbox, limits: { memMB: 64, cpuMs: 5000 } });
    const created = await register(manifest);
    expect(created.status, created.text).toBe(201);
    const version = await api("GET", `/v1/tools/${manifest.id}/versions/1.0.0`);
    expect(version.body.artifact).toEqual({ imageRef: `${registry.host}/acme/tools:1.0.0`, digest: v1.digest, artifactVersion: "1.0.0" });
    const run = await invoke(manifest.id, "1.0.0", { text: "hello" });
    expect(run.status, JSON.stringify(run)).toBe("completed");
    expect(run.output).toEqual({ said: "HELLO!", word: "one" });
    const events = await journalOf(run.id);
    expect(events.find((event) => event.type === "tool-call-started").data.artifact).toEqual({ imageRef: `${registry.host}/acme/tools:1.0.0`, artifactVersion: "1.0.0", digest: v1.digest });
    expect(events.find((event) => event.type === "tool-logged").data.message).toBe("running one");
    // Unpacked once, read-only, under its digest.
    const unpacked = path.join(cacheDir, "bundles", "sha256", v1.digest.slice("sha256:".length), "files");
    expect(fs.readFileSync(path.join(unpacked, "pack/lib/shout.mjs"), "utf8")).toContain("toUpperCase");
    for (const file of ["pack", "pack/handler.mjs", "pack/lib/shout.mjs"]) expect(fs.statSync(path.join(unpacked, file)).mode & 0o222).toBe(0);
  });

  it("keeps running the bytes it registered when its tag is repointed; a new version takes the new bytes", async () => {
    const manifest = ociTool(`${registry.host}/acme/tools:stable`);
    await pushBundle(registry, "acme/tools", "stable", bundle("one"));
    expect((await register(manifest)).status).toBe(201);
    const v2 = await pushBundle(registry, "acme/tools", "stable", bundle("two"));
    expect(v2.digest).not.toBe(v1.digest);
    expect((await invoke(manifest.id, "1.0.0", { text: "a" })).output).toEqual({ said: "A!", word: "one" });
    const next = await register({ ...manifest, version: "1.0.1", codeArtifactRef: { ...manifest.codeArtifactRef, artifactVersion: "1.0.1" } });
    expect(next.status, next.text).toBe(201);
    expect((await api("GET", `/v1/tools/${manifest.id}/versions/1.0.1`)).body.artifact.digest).toBe(v2.digest);
    expect((await invoke(manifest.id, "1.0.1", { text: "b" })).output).toEqual({ said: "B!", word: "two" });
    expect((await invoke(manifest.id, "1.0.0", { text: "c" })).output).toEqual({ said: "C!", word: "one" });
  });

  it("refuses a filesystem handler", async () => {
    const refused = await register(ociTool("unused", { codeArtifactRef: { kind: "filesystem", modulePath: path.join(own.handlers, "echo.mjs") } }));
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.issues.map((issue: any) => issue.path)).toContain("/codeArtifactRef");
  });

  it("runs a pausing oci tool after a person's approval, and the other system's answer ends the run", async () => {
    handed.length = 0;
    const tool = ociTool(`${registry.host}/acme/tools:1.0.0`, {
      description: "Asks the back office and waits for its answer.",
      input: { type: "object", properties: { notify: { type: "string" } }, required: ["notify"] },
      output: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
      mutating: true,
      pauses: true,
      sandbox: "strict",
      network: { kind: "allowlist", hosts: [receiver.hostPort] },
      codeArtifactRef: { kind: "oci", imageRef: `${registry.host}/acme/tools:1.0.0`, modulePath: "/pack/pauser.mjs", artifactVersion: "1.0.0" },
    });
    expect((await register(tool)).status).toBe(201);
    const agent = { id: `acme.asker-${Date.now().toString(36)}`, version: "1.0.0", name: "Asker", instructions: "Ask.", capabilities: [{ kind: "llm-inference" }], tools: [{ id: tool.id, version: "1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted" };
    expect((await api("POST", "/v1/agents", { ...agent, projectId: tenant.projectId })).status).toBe(201);
    const started = await api("POST", "/v1/runs", { agent: { id: agent.id }, input: { userMessage: script({ toolCalls: [{ name: tool.id, arguments: { notify: `${receiver.origin}/notify` } }] }, { text: "the office answered" }) } });
    expect(started.body.status, started.text).toBe("suspended");
    expect(handed).toEqual([]);
    const pending = await api("GET", `/v1/approvals?runId=${started.body.id}&status=pending`);
    expect(pending.body.data).toHaveLength(1);
    expect((await api("POST", `/v1/approvals/${pending.body.data[0].id}/complete`, { decision: "approve" })).status).toBe(200);
    for (let i = 0; i < 100 && handed.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(handed).toHaveLength(1);
    const completed = await call("POST", `/v1/waits/${handed[0].waitId}/complete`, { baseUrl: own.server.baseUrl, body: { token: handed[0].token, output: { answer: "yes" } } });
    expect(completed.status, completed.text).toBe(200);
    let run: any;
    for (let i = 0; i < 100; i++) {
      run = (await api("GET", `/v1/runs/${started.body.id}`)).body;
      if (run.status === "completed" || run.status === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(run.status, JSON.stringify(run.failure)).toBe("completed");
    const events = await journalOf(run.id);
    expect(events.find((event) => event.type === "tool-call-completed").data).toMatchObject({ ok: true, output: { answer: "yes" } });
  });
});

describe("an oci artifact that cannot be run fails the call with a precise code, and nothing runs", () => {
  it("a tampered blob: artifact-digest-mismatch, and no bundle is unpacked", async () => {
    const pushed = await pushBundle(registry, "acme/tampered", "1.0.0", { "pack/handler.mjs": `export default async () => { await fetch("http://127.0.0.1:1/ran"); return {}; }\n` });
    const manifest = ociTool(`${registry.host}/acme/tampered:1.0.0`);
    expect((await register(manifest)).status).toBe(201);
    await tamperBlob(registry, pushed.layerDigest);
    const run = await invoke(manifest.id, "1.0.0", { text: "x" });
    expect(run.status).toBe("failed");
    expect(run.failure).toMatchObject({ code: "tool-invocation-failed", details: { reason: "artifact-digest-mismatch" } });
    expect(bundlesIn(cacheDir)).not.toContain(pushed.digest.slice("sha256:".length));
  });

  it("a missing artifact: refused at registration by tag, and a call of a digest no registry has fails with artifact-not-found", async () => {
    const missingTag = await register(ociTool(`${registry.host}/acme/tools:9.9.9`));
    expect(missingTag.status).toBe(400);
    expect(missingTag.body.error.details.issues).toEqual([expect.objectContaining({ path: "/codeArtifactRef/imageRef", message: expect.stringContaining("artifact-not-found") })]);
    const byDigest = ociTool(`${registry.host}/acme/tools@sha256:${"0".repeat(64)}`);
    expect((await register(byDigest)).status).toBe(201);
    const run = await invoke(byDigest.id, "1.0.0", { text: "x" });
    expect(run.failure).toMatchObject({ details: { reason: "artifact-not-found" } });
  });

  it("an artifact over the server's size limit: artifact-too-large", async () => {
    const big = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4) big.writeUInt32LE((Math.random() * 2 ** 32) >>> 0, i);
    await pushBundle(registry, "acme/big", "1.0.0", { "pack/handler.mjs": "export default async () => ({});\n", "pack/blob.bin": big });
    const manifest = ociTool(`${registry.host}/acme/big:1.0.0`);
    expect((await register(manifest)).status).toBe(201);
    const run = await invoke(manifest.id, "1.0.0", { text: "x" });
    expect(run.failure).toMatchObject({ details: { reason: "artifact-too-large" } });
  });

  it("a private registry on a server without KINDGI_OCI_ALLOW_PRIVATE_REGISTRIES: network-denied", async () => {
    // The shared test server has no such setting.
    const other = await newTenant("oci private registry");
    const byTag = await call("POST", "/v1/tools", { key: other.key, body: { ...ociTool(`${registry.host}/acme/tools:1.0.0`), projectId: other.projectId } });
    expect(byTag.status).toBe(400);
    expect(byTag.body.error.details.issues[0]).toMatchObject({ path: "/codeArtifactRef/imageRef", message: expect.stringContaining("network-denied") });
    const byDigest = ociTool(`${registry.host}/acme/tools@${v1.digest}`);
    expect((await call("POST", "/v1/tools", { key: other.key, body: { ...byDigest, projectId: other.projectId } })).status).toBe(201);
    const run = await call("POST", `/v1/tools/${byDigest.id}/versions/1.0.0/invoke`, { key: other.key, body: { arguments: { text: "x" } } });
    expect(run.body.failure).toMatchObject({ details: { reason: "network-denied" } });
  });
});

describe("the artifact cache", () => {
  it("is not another tenant's way in: a bundle in the cache runs for a tenant only once the registry accepts its credentials", async () => {
    const stranger = await tenantOn(own.server.baseUrl, own.operatorToken, "oci stranger");
    const manifest = ociTool(`${registry.host}/acme/tools@${v1.digest}`);
    const on = { key: stranger.key, baseUrl: own.server.baseUrl };
    expect((await register(manifest, { ...on, projectId: stranger.projectId })).status).toBe(201);
    expect(bundlesIn(cacheDir)).toContain(v1.digest.slice("sha256:".length));
    const refused = await invoke(manifest.id, "1.0.0", { text: "x" }, on);
    expect(refused.failure).toMatchObject({ details: { reason: "artifact-unauthorized" } });
    // With the registry's credentials of its own, the same digest runs from the cache.
    expect((await call("POST", "/v1/secrets", { ...on, body: { name: `registry.${registry.host.replace(":", "_")}`, value: `${registry.username}:${registry.password}` } })).status).toBe(201);
    expect((await invoke(manifest.id, "1.0.0", { text: "y" }, on)).output).toEqual({ said: "Y!", word: "one" });
  });

  it("serves a version's calls once the registry is gone", async () => {
    const manifest = ociTool(`${registry.host}/acme/tools@${v1.digest}`);
    expect((await register(manifest)).status).toBe(201);
    await registry.close();
    const run = await invoke(manifest.id, "1.0.0", { text: "offline" });
    expect(run.status, JSON.stringify(run.failure)).toBe("completed");
    expect(run.output).toEqual({ said: "OFFLINE!", word: "one" });
  });
});
