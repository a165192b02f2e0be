/**
 * A tool this server cannot invoke (a stdio MCP tool on a server without stdio, a manifest with neither `spec` nor handler) is
 * registered with a warning that says so, agent registration and validation warn about an agent that uses one, and
 * a run that calls it fails with the same reason. A built-in tool's invalid arguments go back to the model.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, newTenant, toolManifest, type TestTenant } from "./helpers/api";
import { journal, registerAgent, runTurn, script } from "./helpers/kernel";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await newTenant("invocability");
});

const register = (manifest: Record<string, unknown>) => call("POST", "/v1/tools", { key: tenant.key, body: { ...manifest, projectId: tenant.projectId } });

const notInvocable = {
  mcp: () => toolManifest({ transport: "mcp", mcpEndpoint: "mcp+stdio://dictionary-server", spec: undefined }),
  neither: () => toolManifest({ spec: undefined }),
};

describe("POST /v1/tools", () => {
  it("registers a tool this server cannot invoke with a warning at the field concerned", async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [notInvocable.mcp(), "/mcpEndpoint", "stdio MCP endpoints are disabled on this server (set KINDGI_MCP_STDIO=allow to enable them)"],
      [notInvocable.neither(), "/spec", "it has neither an HTTP `spec` nor a handler"],
    ];
    for (const [manifest, path, reason] of cases) {
      const created = await register(manifest);
      expect(created.status, created.text).toBe(201);
      expect(created.body).toEqual({
        toolId: manifest.id,
        version: "1.0.0",
        warnings: [{ path, message: expect.stringContaining(`tool ${manifest.id}@1.0.0 cannot be invoked by this server: ${reason}`) }],
      });
    }
  });

  it("registers an HTTP tool without a warning", async () => {
    const manifest = toolManifest();
    expect((await register(manifest)).body).toEqual({ toolId: manifest.id, version: "1.0.0", warnings: [] });
  });
});

describe("an agent using a tool this server cannot invoke", () => {
  it("is registered and validated with a warning at /tools/<i>, and its run fails with the reason", async () => {
    const mcp = notInvocable.mcp();
    const http = toolManifest();
    for (const manifest of [mcp, http]) expect((await register(manifest)).status).toBe(201);
    const tools = [{ id: http.id, version: "^1.0.0" }, { id: "current-time", version: "^1.0.0" }, { id: mcp.id, version: "^1.0.0" }];

    const validated = await call("POST", "/v1/agents/validate", { key: tenant.key, body: { id: "acme.uses-mcp", version: "1.0.0", name: "Uses MCP", instructions: "Look things up.", capabilities: [{ kind: "llm-inference" }], tools, retrieval: [], guardrails: [], preferredProvider: "scripted" } });
    expect(validated.status).toBe(200);
    expect(validated.body.valid).toBe(true);
    expect(validated.body.warnings).toEqual([{ path: "/tools/2", message: expect.stringContaining(`"^1.0.0" resolves to ${mcp.id}@1.0.0, which this server cannot invoke: stdio MCP endpoints are disabled on this server`) }]);

    const agent = await registerAgent(tenant, { tools });
    const registered = await call("GET", `/v1/agents/${agent.id}/versions/1.0.0`, { key: tenant.key });
    expect(registered.status).toBe(200);
    const again = await call("POST", "/v1/agents", { key: tenant.key, body: { ...registered.body.definition, version: "1.0.1", projectId: tenant.projectId } });
    expect(again.status).toBe(201);
    expect(again.body.warnings).toEqual([{ path: "/tools/2", message: expect.stringContaining("stdio MCP endpoints are disabled on this server") }]);

    const run = await call("POST", "/v1/runs", { key: tenant.key, body: { agent, input: { userMessage: script({ toolCalls: [{ name: mcp.id, arguments: { word: "kindgi" } }] }, { text: "done" }) } } });
    expect(run.status).toBe(201);
    expect(run.body.status).toBe("failed");
    expect(run.body.failure).toMatchObject({ code: "tool-invocation-failed" });
    const completed = (await journal(tenant, run.body.id)).filter((event) => event.type === "tool-call-completed").map((event) => event.data);
    expect(completed).toEqual([expect.objectContaining({ ok: false, error: expect.objectContaining({ kind: "tool-error", reason: "transport-unavailable", message: expect.stringContaining("cannot be invoked by this server: stdio MCP endpoints are disabled on this server") }) })]);
  });
});

describe("current-time with dev-echo", () => {
  it("answers a plain question with the time in UTC", async () => {
    const agent = await registerAgent(tenant, { tools: [{ id: "current-time", version: "^1.0.0" }], preferredProvider: "dev-echo" });
    const run = await runTurn(tenant, agent, "What time is it?");
    expect(run.status).toBe("completed");
    expect(run.provider).toEqual({ id: "dev-echo", model: "dev-echo" });
    expect(run.output).toMatch(/^\[dev-echo: not a real model\] \{"iso":"[^"]+Z","unixMs":\d+,"timezone":"UTC",/);
  });

  it("sends an unknown time zone back to the model as invalid-arguments, and the run completes with an answer", async () => {
    const agent = await registerAgent(tenant, { tools: [{ id: "current-time", version: "^1.0.0" }], preferredProvider: "dev-echo" });
    const run = await runTurn(tenant, agent, JSON.stringify({ timezone: "Mars/Olympus" }));
    expect(run.status).toBe("completed");
    expect(run.output).toContain('unknown time zone \\"Mars/Olympus\\"');
    const completed = (await journal(tenant, run.id)).filter((event) => event.type === "tool-call-completed").map((event) => event.data);
    expect(completed).toEqual([expect.objectContaining({ ok: false, error: expect.objectContaining({ kind: "invalid-arguments" }) })]);
  });
});
