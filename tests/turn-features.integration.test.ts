import { beforeAll, describe, expect, it } from "vitest";
import { call, kindgi, newTenant, type TestTenant } from "./helpers/api";
import { httpTool, journal, registerAgent, registerTool, runTurn, script, runTurnApproving } from "./helpers/kernel";
import { sanitizeToolName } from "../lib/models/provider";
import { startWireServer } from "../lib/models/providers/testing/wire-server";
import { sendJson, startRecordingServer } from "../lib/tools/invokers/testing/recording-server";

describe("guardrails on the final answer", () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await newTenant("guardrails in turns");
  });

  async function guardrail(body: Record<string, unknown>): Promise<string> {
    const id = `test.guard-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
    const response = await call("POST", "/v1/guardrails", { key: tenant.key, body: { id, version: "1.0.0", name: "Guard", ...body } });
    if (response.status !== 201) throw new Error(`guardrail registration failed: ${response.status} ${response.text}`);
    return id;
  }

  it("halt: the turn fails guardrail-violation and the answer is stored nowhere", async () => {
    const deny = await guardrail({ action: "halt", check: { kind: "deny-terms", terms: ["password"] } });
    const agent = await registerAgent(tenant, { guardrails: [deny] });
    const conversationId = (await call("POST", "/v1/conversations", { key: tenant.key, body: { agent } })).body.id;
    const secretAnswer = "the admin password is hunter2-zebra";
    const run = await runTurn(tenant, agent, script({ text: secretAnswer }), { conversationId });
    expect(run.status).toBe("failed");
    expect(run.output).toBeNull();
    expect(run.failure).toMatchObject({ code: "guardrail-violation", details: { findings: [{ guardrailId: deny, action: "halt", check: "deny-terms" }] } });
    // The answer appears only in the user's own message (the script), never as something the run produced.
    const events = await journal(tenant, run.id);
    expect(JSON.stringify(events.filter((event) => event.type !== "run-created"))).not.toContain("hunter2-zebra");
    expect(JSON.stringify({ ...run, input: null })).not.toContain("hunter2-zebra");
    expect(events.find((event) => event.type === "model-called").data).toMatchObject({ text: null, textWithheld: true });
    expect((await call("GET", `/v1/conversations/${conversationId}/messages`, { key: tenant.key })).body.data).toEqual([]);
  });

  it("flag: the run completes and the finding is recorded on it", async () => {
    const long = await guardrail({ action: "flag", check: { kind: "max-length", maxLength: 10 } });
    const pattern = await guardrail({ action: "flag", check: { kind: "regex", pattern: "\\d{4}" } });
    const agent = await registerAgent(tenant, { guardrails: [long, pattern] });
    const run = await runTurn(tenant, agent, script({ text: "short" }));
    expect(run).toMatchObject({ status: "completed", flags: [] });
    const flagged = await runTurn(tenant, agent, script({ text: "this answer is long and says 1234" }));
    expect(flagged.status).toBe("completed");
    expect(flagged.output).toBe("this answer is long and says 1234");
    expect(flagged.flags.map((flag: any) => [flag.guardrailId, flag.check])).toEqual([[long, "max-length"], [pattern, "regex"]]);
    expect((await journal(tenant, flagged.id)).map((event) => event.type)).toContain("guardrail-flagged");
  });

  it("a JSON Schema guardrail checks the answer as JSON", async () => {
    const shape = await guardrail({ action: "halt", check: { kind: "json-schema", schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } } });
    const agent = await registerAgent(tenant, { guardrails: [shape] });
    expect((await runTurn(tenant, agent, script({ text: '{"ok": true}' }))).status).toBe("completed");
    expect((await runTurn(tenant, agent, script({ text: "plain text" }))).failure.code).toBe("guardrail-violation");
  });

  it("an unknown (or unregistered) guardrail fails the turn at start with unresolved-guardrail", async () => {
    const gone = await guardrail({ action: "halt", check: { kind: "max-length", maxLength: 5 } });
    expect((await call("POST", `/v1/guardrails/${gone}/versions/1.0.0/unregister`, { key: tenant.key })).status).toBe(200);
    const agent = await registerAgent(tenant, { guardrails: ["test.never-registered", gone] });
    const run = await runTurn(tenant, agent, script({ text: "never" }));
    expect(run.status).toBe("failed");
    expect(run.failure).toMatchObject({ code: "unresolved-guardrail", details: { missing: ["test.never-registered", gone] } });
    expect(run.usage.modelCalls).toBe(0);
  });
});

describe("memory: retrieval and the native tools", () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await newTenant("memory in turns");
  });

  it("retrieval intents find facts by keyword, record them on the run, and send them fenced as data", async () => {
    for (const [type, content] of [["preference", "The customer prefers email contact"], ["preference", "The customer likes blue invoices"], ["address", "Ships to Berlin"]]) {
      expect((await call("POST", "/v1/memory/facts", { key: tenant.key, body: { type, content, projectId: tenant.projectId } })).status).toBe(201);
    }
    const agent = await registerAgent(tenant, { retrieval: [{ types: ["preference"], scope: "same-project", limit: 5, mode: "keyword" }], preferredProvider: "dev-echo" });
    const run = await runTurn(tenant, agent, "how should we contact the customer by email?");
    expect(run.status).toBe("completed");
    const contents = run.retrievedFacts.map((fact: any) => fact.content);
    expect(contents[0]).toBe("The customer prefers email contact");
    expect(contents).not.toContain("Ships to Berlin");
    const started = (await journal(tenant, run.id)).find((event) => event.type === "turn-started");
    expect(started.data.instructions).toBe("You are a test agent.");
    expect(started.data.facts.map((fact: any) => fact.content)).toEqual(contents);
  });

  it("same-conversation retrieval sees only that conversation's facts", async () => {
    const agent = await registerAgent(tenant, { retrieval: [{ types: ["note"], scope: "same-conversation" }] });
    const here = (await call("POST", "/v1/conversations", { key: tenant.key, body: { agent } })).body.id;
    const there = (await call("POST", "/v1/conversations", { key: tenant.key, body: { agent } })).body.id;
    await call("POST", "/v1/memory/facts", { key: tenant.key, body: { type: "note", content: "The parcel number is 777", conversationId: here } });
    await call("POST", "/v1/memory/facts", { key: tenant.key, body: { type: "note", content: "The parcel number is 999", conversationId: there } });
    const keyword = await runTurn(tenant, agent, "parcel number", { conversationId: here });
    expect(keyword.retrievedFacts.map((fact: any) => fact.content)).toEqual(["The parcel number is 777"]);
  });

  it("remember (mutating: a person approves it), recall and current-time run as built-in tools", async () => {
    const agent = await registerAgent(tenant, {
      tools: [
        { id: "remember", version: "^1.0.0" },
        { id: "recall", version: "^1.0.0" },
        { id: "current-time", version: "^1.0.0" },
      ],
    });
    const conversationId = (await call("POST", "/v1/conversations", { key: tenant.key, body: { agent } })).body.id;
    const run = await runTurnApproving(
      tenant,
      agent,
      script(
        { toolCalls: [{ name: "remember", arguments: { content: "Ada's favourite colour is teal", type: "preference" } }] },
        { toolCalls: [{ name: "recall", arguments: { query: "favourite colour" } }, { name: "current-time", arguments: { timezone: "Europe/Berlin" } }] },
        { text: "teal" },
      ),
      { conversationId },
    );
    expect(run.status).toBe("completed");
    expect(run.resolvedTools.map((tool: any) => [tool.id, tool.version])).toEqual([["remember", "1.0.0"], ["recall", "1.1.0"], ["current-time", "1.0.0"]]);
    // recall and current-time are read-only and ran together: their completions may come in either order.
    const completions = (await journal(tenant, run.id)).filter((event) => event.type === "tool-call-completed").map((event) => event.data);
    const byCall = Object.fromEntries(completions.map((data: any) => [data.callId, data]));
    expect(Object.keys(byCall).sort()).toEqual(["0.0", "1.0", "1.1"]);
    expect(byCall["0.0"]).toMatchObject({ ok: true, toolId: "remember", output: { type: "preference" } });
    expect(byCall["1.0"]).toMatchObject({ ok: true, toolId: "recall" });
    expect(byCall["1.0"].output.facts.map((fact: any) => fact.content)).toEqual(["Ada's favourite colour is teal"]);
    expect(byCall["1.1"]).toMatchObject({ ok: true, toolId: "current-time", output: { timezone: "Europe/Berlin" } });
    const facts = await call("GET", `/v1/memory/facts?conversationId=${conversationId}`, { key: tenant.key });
    expect(facts.body.data).toEqual([expect.objectContaining({ content: "Ada's favourite colour is teal", source: "tool", runId: run.id })]);
  });

  it("an unknown time zone is an invalid-arguments error the model can correct (the default tool-error policy)", async () => {
    const agent = await registerAgent(tenant, { tools: [{ id: "current-time", version: "1.0.0" }] });
    const run = await runTurn(tenant, agent, script({ toolCalls: [{ name: "current-time", arguments: { timezone: "Mars/Olympus" } }] }, { toolCalls: [{ name: "current-time", arguments: {} }] }, { text: "done" }));
    expect(run.status).toBe("completed");
    const results = (await journal(tenant, run.id)).filter((event) => event.type === "tool-call-completed").map((event) => event.data);
    expect(results[0]).toMatchObject({ ok: false, error: { kind: "invalid-arguments", message: expect.stringContaining('unknown time zone "Mars/Olympus"') } });
    expect(results[1]).toMatchObject({ ok: true, output: { timezone: "UTC" } });
  });
});

describe("a turn on a tenant's OpenAI-compatible provider", () => {
  it("maps tool names both ways, retries a rate limit (counted), and prices usage from the provider's models", async () => {
    const tenant = await newTenant("tenant provider");
    const wire = await startWireServer();
    const receiver = await startRecordingServer((request, response) => sendJson(response, 200, { definition: `defined ${JSON.parse(request.body).word}` }));
    try {
      expect((await call("POST", "/v1/secrets", { key: tenant.key, body: { name: "llm-key", value: "sk-test-tenant" } })).status).toBe(201);
      const created = await call("POST", "/v1/providers", {
        key: tenant.key,
        body: { id: "house-llm", kind: "openai-compatible", baseUrl: `${wire.url}/v1`, apiKeySecret: "llm-key", models: [{ name: "house-1", features: ["tool-use"], inputUsdPerMTok: 2, outputUsdPerMTok: 10 }] },
      });
      expect(created.status).toBe(201);
      const toolId = await registerTool(tenant, httpTool(receiver));
      const apiName = sanitizeToolName(toolId);
      expect(apiName).not.toBe(toolId);
      const agent = await registerAgent(tenant, { tools: [{ id: toolId, version: "1.0.0" }], preferredProvider: "house-llm" });
      const usage = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 };
      wire.enqueue(
        { status: 429, headers: { "retry-after": "0" }, json: { error: { message: "slow down" } } },
        { json: { id: "c1", object: "chat.completion", model: "house-1", choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [{ id: "call_a", type: "function", function: { name: apiName, arguments: '{"word":"lattice"}' } }] }, finish_reason: "tool_calls" }], usage } },
        { json: { id: "c2", object: "chat.completion", model: "house-1", choices: [{ index: 0, message: { role: "assistant", content: "A lattice is a grid." }, finish_reason: "stop" }], usage } },
      );
      const run = await runTurn(tenant, agent, "what is a lattice?");
      expect(run).toMatchObject({ status: "completed", output: "A lattice is a grid.", provider: { id: "house-llm", model: "house-1" } });
      expect(run.usage).toMatchObject({ inputTokens: 2000, outputTokens: 200, modelCalls: 2, toolCalls: 1 });
      expect(run.costUsd).toBeCloseTo((2000 * 2 + 200 * 10) / 1_000_000, 12);
      expect(wire.requests).toHaveLength(3);
      expect((wire.requests[1].body as any).tools[0].function.name).toBe(apiName);
      expect(wire.requests[1].headers.authorization).toBe("Bearer sk-test-tenant");
      const events = await journal(tenant, run.id);
      const calls = events.filter((event) => event.type === "model-called").map((event) => event.data);
      expect(calls[0]).toMatchObject({ attempts: 2, toolCalls: [{ id: "call_a", name: toolId, arguments: { word: "lattice" } }] });
      expect(calls[1].attempts).toBe(1);
      // The tool result went back under the API's name and the model's call id.
      const toolMessage = (wire.requests[2].body as any).messages.find((message: any) => message.role === "tool");
      expect(toolMessage).toMatchObject({ tool_call_id: "call_a" });
      expect(JSON.parse(toolMessage.content)).toEqual({ definition: "defined lattice" });
    } finally {
      await wire.close();
      await receiver.close();
    }
  });
});

describe("a catastrophic guardrail pattern", () => {
  it("cannot stall the server: the check times out, counts as a violation, and other requests are served meanwhile", async () => {
    const tenant = await newTenant("redos");
    const id = `test.redos-${Date.now().toString(36)}`;
    expect((await call("POST", "/v1/guardrails", { key: tenant.key, body: { id, version: "1.0.0", name: "Nested quantifiers", action: "halt", check: { kind: "regex", pattern: "(a+)+$" } } })).status).toBe(201);
    const agent = await registerAgent(tenant, { guardrails: [id] });
    const begin = Date.now();
    const pending = runTurn(tenant, agent, script({ text: `${"a".repeat(60)}!` }));
    const health = await fetch(`${kindgi().baseUrl}/health`);
    expect(health.status).toBe(200);
    const run = await pending;
    expect(Date.now() - begin).toBeLessThan(10_000);
    expect(run.failure).toMatchObject({ code: "guardrail-violation", details: { findings: [{ guardrailId: id, check: "regex" }] } });
    expect(run.failure.details.findings[0].message).toContain("did not finish");
  });
});
