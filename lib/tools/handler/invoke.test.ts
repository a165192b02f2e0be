import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import type { HandlerLogLine } from "@/lib/tools/handler/context";
import { disposeSandboxes, invokeHandlerTool } from "@/lib/tools/handler/invoke";

const folder = mkdtempSync(join(tmpdir(), "handler-unit-"));
cpSync(resolve(__dirname, "../../../tests/fixtures/handlers"), folder, { recursive: true });
afterAll(() => {
  // The pooled sandboxes: vitest ends its workers without an exit event, so their folders are removed here.
  disposeSandboxes();
  rmSync(folder, { recursive: true, force: true });
});

const SECRET = "s3cr3t-value-9f8e7d";

function manifest(file: string, sandbox: ToolManifest["sandbox"], extra: Partial<ToolManifest> = {}): ToolManifest {
  return {
    id: "acme.test",
    version: "1.0.0",
    description: "test",
    input: { type: "object" },
    output: { type: "object" },
    sandbox,
    codeArtifactRef: { kind: "filesystem", modulePath: join(folder, file) },
    needsSpec: { secrets: { API_TOKEN: { name: "acme-token" } }, env: { REGION: { value: "eu-west" } }, config: { greeting: { default: "hello" } } },
    ...extra,
  };
}

function call(m: ToolManifest, input: unknown, signal = new AbortController().signal) {
  const logs: HandlerLogLine[] = [];
  const resolved: string[] = [];
  const result = invokeHandlerTool(m, input, {
    idempotencyKey: "run_1:0.0",
    signal,
    resolveSecret: async (name) => {
      resolved.push(name);
      return SECRET;
    },
    log: (line) => logs.push(line),
  });
  return result.then((outcome) => ({ outcome, logs, resolved }));
}

describe.each(["none", "context-isolated", "strict"] as const)("sandbox %s", (sandbox) => {
  it("runs the default export with the context; secrets are redacted from logs and the result", async () => {
    const { outcome, logs, resolved } = await call(manifest("echo.mjs", sandbox), { text: "hi" });
    expect(outcome).toEqual({ ok: true, output: { echo: "hi", region: "eu-west", greeting: "hello", key: "run_1:0.0", tokenLength: SECRET.length, leaked: "token=[redacted]" } });
    expect(resolved).toEqual(["acme-token"]);
    expect(logs.map((line) => [line.level, line.message])).toEqual([
      ["info", 'calling with token [redacted] {"region":"eu-west"}'],
      ["warn", "second line"],
    ]);
    expect(JSON.stringify(logs)).not.toContain(SECRET);
  });
});

describe.each(["context-isolated", "strict"] as const)("limits under %s", (sandbox) => {
  it("a memory hog fails with handler-memory-exceeded, and the next call succeeds", async () => {
    const { outcome } = await call(manifest("hog.mjs", sandbox, { limits: { memMB: 32, cpuMs: 20_000 } }), {});
    expect(outcome).toMatchObject({ ok: false, error: { kind: "tool-error", reason: "handler-memory-exceeded" } });
    const again = await call(manifest("echo.mjs", sandbox, { limits: { memMB: 32, cpuMs: 20_000 } }), { text: "after" });
    expect(again.outcome).toMatchObject({ ok: true, output: { echo: "after" } });
  });

  it("an endless loop fails with handler-cpu-exceeded near its cpuMs", async () => {
    const begin = Date.now();
    const { outcome } = await call(manifest("spin.mjs", sandbox, { limits: { memMB: 64, cpuMs: 300 } }), {});
    expect(outcome).toMatchObject({ ok: false, error: { reason: "handler-cpu-exceeded", message: expect.stringContaining("300 ms") } });
    expect(Date.now() - begin).toBeLessThan(5_000);
  });

  it("a cancelled call stops its sandbox", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const { outcome } = await call(manifest("spin.mjs", sandbox), {}, controller.signal);
    expect(outcome).toMatchObject({ ok: false, error: { reason: "handler-cancelled" } });
  });
});

describe("strict permissions", () => {
  it("refuses a write outside the temporary folder, a child process and a read outside the handler's folder", async () => {
    const target = join(tmpdir(), `escaped-${process.pid}.txt`);
    const write = await call(manifest("escape.mjs", "strict"), { action: "write", path: target });
    expect(write.outcome).toMatchObject({ ok: false, error: { reason: "handler-permission-denied" } });
    expect(existsSync(target)).toBe(false);
    const spawn = await call(manifest("escape.mjs", "strict"), { action: "spawn" });
    expect(spawn.outcome).toMatchObject({ ok: false, error: { reason: "handler-permission-denied" } });
    const read = await call(manifest("escape.mjs", "strict"), { action: "read", path: "/etc/hostname" });
    expect(read.outcome).toMatchObject({ ok: false, error: { reason: "handler-permission-denied" } });
    const scratch = await call(manifest("escape.mjs", "strict"), { action: "tmp" });
    expect(scratch.outcome).toEqual({ ok: true, output: { text: "scratch" } });
  });

  it("the same handler under context-isolated reads its own folder, and sees nothing of the server's outside /usr", async () => {
    const own = await call(manifest("escape.mjs", "context-isolated"), { action: "read", path: join(folder, "echo.mjs") });
    expect(own.outcome).toMatchObject({ ok: true });
    const server = await call(manifest("escape.mjs", "context-isolated"), { action: "read", path: __filename });
    expect(server.outcome).toMatchObject({ ok: false, error: { reason: "handler-error", message: expect.stringContaining("ENOENT") } });
  });
});

describe("strict sandboxes and the process's exit", () => {
  it("a process that exits with a strict sandbox pooled leaves no egress folder behind", () => {
    // A child process runs one strict call (its sandbox stays pooled, with its egress proxy's folder) and exits;
    // TMPDIR is a folder of this test's, so the sandbox's folder is created there.
    const scratch = mkdtempSync(join(tmpdir(), "handler-exit-"));
    try {
      const script = `
        import { readdirSync } from "node:fs";
        const { invokeHandlerTool } = await import(${JSON.stringify(resolve(__dirname, "invoke.ts"))});
        const manifest = { id: "acme.test", version: "1.0.0", description: "test", input: { type: "object" }, output: { type: "object" }, sandbox: "strict",
          codeArtifactRef: { kind: "filesystem", modulePath: ${JSON.stringify(join(folder, "escape.mjs"))} } };
        const outcome = await invokeHandlerTool(manifest, { action: "tmp" }, { idempotencyKey: "run_1:0.0", signal: new AbortController().signal, resolveSecret: async () => "", log: () => {} });
        console.log(JSON.stringify({ outcome, before: readdirSync(process.env.TMPDIR + "/kindgi-egress") }));
        process.exit(0);`;
      const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: resolve(__dirname, "../../.."), env: { ...process.env, TMPDIR: scratch }, encoding: "utf8", timeout: 60_000 });
      expect(child.status, child.stderr).toBe(0);
      const report = JSON.parse(child.stdout.trim().split("\n").at(-1)!);
      expect(report.outcome).toEqual({ ok: true, output: { text: "scratch" } });
      expect(report.before.filter((name: string) => name.startsWith("sandbox-"))).toHaveLength(1);
      expect(readdirSync(join(scratch, "kindgi-egress"))).toEqual([]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe("artifacts and network", () => {
  it("an oci handler whose bundle was not prepared does not run", async () => {
    const { outcome } = await call({ ...manifest("echo.mjs", "strict"), codeArtifactRef: { kind: "oci", imageRef: "ghcr.io/acme/tools:1", modulePath: "/handler.mjs", artifactVersion: "1" } }, {});
    expect(outcome).toMatchObject({ ok: false, error: { reason: "handler-load-failed", message: expect.stringContaining("was not prepared") } });
  });

  it.each(["none", "strict"] as const)("context.fetch applies the network policy (%s)", async (sandbox) => {
    const { outcome } = await call(manifest("fetcher.mjs", sandbox, { network: { kind: "none" } }), { url: "http://example.com/" });
    expect(outcome).toMatchObject({ ok: false, error: { reason: "network-denied" } });
    const loopback = await call(manifest("fetcher.mjs", sandbox), { url: "http://127.0.0.1:9/" });
    expect(loopback.outcome).toMatchObject({ ok: false, error: { reason: "network-denied" } });
  });
});

describe.each(["none", "context-isolated", "strict"] as const)("connections under %s", (sandbox) => {
  it("the handler reads its resolved connections (frozen); the access token is redacted from logs", async () => {
    const token = "conn-token-5a4b3c2d1e";
    const logs: HandlerLogLine[] = [];
    const outcome = await invokeHandlerTool(manifest("connected.mjs", sandbox), {}, {
      idempotencyKey: "run_1:0.0",
      signal: new AbortController().signal,
      resolveSecret: async () => SECRET,
      log: (line) => logs.push(line),
      connections: { mail: { app: "google", permissions: ["gmail.send"], owner: "person", accessToken: token } },
    });
    expect(outcome).toEqual({ ok: true, output: { app: "google", permissions: ["gmail.send"], owner: "person", tokenLength: token.length, frozen: true, names: ["mail"] } });
    expect(logs.map((line) => line.message)).toEqual(["token [redacted]"]);
  });
});

describe("needs slots and envName secrets", () => {
  const facts = (type: string, query: { text?: string; limit?: number }) => [{ id: "f1", type, content: `${query.text ?? "(newest)"}/${query.limit ?? "-"}`, createdAt: "2025-01-01T00:00:00.000Z" }];
  const source = (conversationId: string | null) => ({ tenantId: "t1", projectId: "p1", runId: "r1", conversationId, readFacts: async (type: string, query: { text?: string; limit?: number }) => facts(type, query) });
  const needsManifest = (sandbox: ToolManifest["sandbox"], needs: ToolManifest["needs"]) =>
    manifest("needs.mjs", sandbox, { needs, needsSpec: { secrets: { API_TOKEN: { name: "acme-token", envName: "ACME_TOKEN" } } } });

  function callWith(m: ToolManifest, input: unknown, needs: ReturnType<typeof source> | undefined, resolveSecret = async () => SECRET) {
    const logs: HandlerLogLine[] = [];
    return invokeHandlerTool(m, input, { idempotencyKey: "run_1:0.0", signal: new AbortController().signal, resolveSecret, log: (line) => logs.push(line), ...(needs ? { needs } : {}) }).then((outcome) => ({ outcome, logs }));
  }

  describe.each(["none", "context-isolated", "strict"] as const)("sandbox %s", (sandbox) => {
    it("injects the declared slots by name, frozen, and the envName secret into context.env (redacted)", async () => {
      const needs = [{ name: "tenant" }, { name: "project" }, { name: "run" }, { name: "conversation" }, { name: "memory:note" }, { name: "blob", optional: true }];
      const { outcome, logs } = await callWith(needsManifest(sandbox, needs), { query: "billing", limit: 3 }, source("c1"));
      expect(outcome).toEqual({
        ok: true,
        output: {
          names: ["conversation", "memory:note", "project", "run", "tenant"],
          ids: { tenant: { id: "t1" }, project: { id: "p1" }, run: { id: "r1" }, conversation: { id: "c1" } },
          found: facts("note", { text: "billing", limit: 3 }),
          newest: facts("note", {}),
          frozen: true,
          tokenLength: SECRET.length,
          leaked: "token=[redacted]",
        },
      });
      expect(logs.map((line) => line.message)).toEqual(["env token [redacted]"]);
    });

    it("fails with need-unavailable before the handler runs when a required slot cannot be provided", async () => {
      const unknown = await callWith(manifest("marker.mjs", sandbox, { needs: [{ name: "db" }, { name: "tenant" }] }), { marker: `unit-${sandbox}` }, source("c1"));
      expect(unknown.outcome).toEqual({ ok: false, error: { kind: "tool-error", reason: "need-unavailable", message: 'the tool requires the needs slot "db", which this run cannot provide; the handler did not run' } });
      const noConversation = await callWith(manifest("marker.mjs", sandbox, { needs: [{ name: "conversation" }] }), { marker: `unit-${sandbox}` }, source(null));
      expect(noConversation.outcome).toMatchObject({ ok: false, error: { reason: "need-unavailable", message: expect.stringContaining('"conversation"') } });
      expect(existsSync(join(folder, `ran-unit-${sandbox}`))).toBe(false);
    });
  });

  it("an optional slot the run cannot fill is absent; a run without a source can fill none", async () => {
    const { outcome } = await callWith(needsManifest("none", [{ name: "conversation", optional: true }, { name: "tenant", optional: true }]), {}, source(null));
    expect(outcome).toMatchObject({ ok: true, output: { names: ["tenant"] } });
    const without = await callWith(needsManifest("none", [{ name: "tenant" }]), {}, undefined);
    expect(without.outcome).toMatchObject({ ok: false, error: { reason: "need-unavailable" } });
  });

  it("an envName secret that cannot be resolved fails the call with need-unavailable, nothing run", async () => {
    const { outcome } = await callWith(needsManifest("none", []), {}, source("c1"), async () => {
      throw new Error('no secret named "acme-token" in this tenant');
    });
    expect(outcome).toEqual({ ok: false, error: { kind: "tool-error", reason: "need-unavailable", message: 'secret "API_TOKEN" (context.env.ACME_TOKEN) could not be resolved: no secret named "acme-token" in this tenant; the handler did not run' } });
  });

  it("the marker fixture does record a call when its needs are met", async () => {
    const { outcome } = await callWith(manifest("marker.mjs", "none", { needs: [{ name: "tenant" }] }), { marker: "unit-met" }, source("c1"));
    expect(outcome).toEqual({ ok: true, output: { ran: "unit-met" } });
    expect(existsSync(join(folder, "ran-unit-met"))).toBe(true);
  });
});
