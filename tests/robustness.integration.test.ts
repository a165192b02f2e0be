import { describe, expect, it } from "vitest";
import { call, kindgi, newTenant, toolManifest } from "./helpers/api";
import { registerAgent } from "./helpers/kernel";

const hostileValues: unknown[] = [null, true, 0, -1, 1.5, 1e308, "", " ", "x".repeat(5000), "\u0000", "😀", "' OR 1=1 --", "../../etc/passwd", [], [1, "a"], {}, { $gt: "" }, { nested: { deep: [{}] } }];
const hostileSegments = ["%00", "..%2F..%2Fetc", "%27%20OR%201%3D1", "%F0%9F%98%80", "A".repeat(300), "00000000-0000-4000-8000-00000000000G", "1.0.0.0", "-1", "%25", "null"];

type OpenApiOperation = { parameters?: Array<{ name: string; in: string }>; requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } };

function concretePath(template: string, values: Record<string, string>) {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? "x");
}

let serial = 0;
/** A valid body for the route, so that each hostile field gets past the other checks. */
function baseBody(template: string): Record<string, unknown> {
  serial++;
  if (template === "/v1/tools") return { ...toolManifest(), projectId: currentProjectId };
  if (template === "/v1/guardrails") return { ...guardrail, id: `${guardrail.id}-${serial}`, projectId: currentProjectId };
  if (template === "/v1/memory/facts") return { type: "note", content: `fuzz ${serial}`, projectId: currentProjectId };
  if (template === "/v1/providers") return { id: `fuzz-${serial}`, kind: "openai-compatible", baseUrl: "https://llm.example.test/v1", apiKeySecret: "fuzz.key", models: [{ name: "fuzz-model" }] };
  if (template === "/v1/conversations") return { agent: { id: currentAgentId } };
  if (template === "/v1/runs") return { agent: { id: currentAgentId }, input: { userMessage: JSON.stringify({ script: [{ text: `fuzz ${serial}` }] }) } };
  return { name: `fuzz ${serial}` };
}
let currentProjectId = "";
let currentAgentId = "";
const guardrail = { id: `fuzz.guardrail-${Date.now().toString(36)}`, version: "1.0.0", name: "fuzz", action: "flag", check: { kind: "regex", pattern: "x" } };

describe("no input produces a 500", () => {
  it("hostile path segments, query values and bodies on every documented route", async () => {
    const tenant = await newTenant();
    currentProjectId = tenant.projectId;
    const manifest = toolManifest();
    await call("POST", "/v1/tools", { key: tenant.key, body: { ...manifest, projectId: tenant.projectId } });
    await call("POST", "/v1/guardrails", { key: tenant.key, body: { ...guardrail, projectId: tenant.projectId } });
    const fact = await call("POST", "/v1/memory/facts", { key: tenant.key, body: { type: "note", content: "a fact to fuzz around", projectId: tenant.projectId } });
    await call("POST", "/v1/secrets", { key: tenant.key, body: { name: "fuzz.key", value: "fuzz-value" } });
    await call("POST", "/v1/providers", { key: tenant.key, body: { ...baseBody("/v1/providers"), id: "fuzz-provider" } });
    const agent = await registerAgent(tenant);
    currentAgentId = agent.id;
    const conversation = await call("POST", "/v1/conversations", { key: tenant.key, body: { agent: { id: agent.id } } });
    const run = await call("POST", "/v1/runs", { key: tenant.key, body: { agent: { id: agent.id }, input: { userMessage: "hi", conversationId: conversation.body.id } } });
    const document = (await call("GET", "/v1/openapi.json")).body as { paths: Record<string, Record<string, OpenApiOperation>> };
    const valid = { projectId: tenant.projectId, toolId: manifest.id, guardrailId: guardrail.id, version: "1.0.0", tokenId: "00000000-0000-4000-8000-000000000000", factId: fact.body.id as string, providerId: "fuzz-provider", agentId: agent.id, conversationId: conversation.body.id as string, runId: run.body.id as string };
    const failures: string[] = [];
    let requests = 0;
    const check = async (method: string, path: string, options: Parameters<typeof call>[2]) => {
      requests++;
      const response = await call(method, path, options);
      if (response.status >= 500 || (response.status >= 400 && !response.body?.error?.code)) failures.push(`${method} ${path} → ${response.status} ${response.text.slice(0, 200)}`);
    };
    for (const [template, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const key = template === "/v1/tenants" ? kindgi().operatorToken : tenant.key;
        const upper = method.toUpperCase();
        for (const param of (operation.parameters ?? []).filter((p) => p.in === "path")) {
          for (const segment of hostileSegments) await check(upper, concretePath(template, { ...valid, [param.name]: segment }), { key });
        }
        const path = concretePath(template, valid);
        for (const param of (operation.parameters ?? []).filter((p) => p.in === "query")) {
          for (const value of ["", "-5", "abc", "1e999", "%00", "true", "x".repeat(3000)]) await check(upper, `${path}?${param.name}=${value}`, { key });
        }
        if (upper === "GET") continue;
        for (const body of hostileValues) await check(upper, path, { key, body });
        for (const raw of ["{", "[", "nul", "\"unterminated", "{\"a\":1}{", "\uFEFF{}"]) await check(upper, path, { key, rawBody: raw, headers: { "Content-Type": "application/json" } });
        const properties = Object.keys(operation.requestBody?.content["application/json"].schema.properties ?? {});
        for (const property of properties) {
          for (const value of hostileValues) await check(upper, path, { key, body: { ...baseBody(template), [property]: value } });
        }
      }
    }
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(500);
  }, 300_000);
});
