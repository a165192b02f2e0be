import { describe, expect, it } from "vitest";
import { call, kindgi, newTenant, toolManifest } from "./helpers/api";
import { registerAgent } from "./helpers/kernel";
import { httpRequest, rawSocketRequest, type RawAnswer } from "./helpers/raw-http";
import { freshPostgresDatabase, newOperatorToken, startServer } from "./helpers/server";
import fs from "node:fs";
import http from "node:http";

const nested = (levels: number): unknown => {
  let value: unknown = {};
  for (let i = 0; i < levels; i++) value = { a: [value] };
  return value;
};
const hostileValues: unknown[] = [null, true, 0, -1, 1.5, 1e308, "", " ", "x".repeat(5000), "\u0000", "😀", "' OR 1=1 --", "../../etc/passwd", [], [1, "a"], {}, { $gt: "" }, { nested: { deep: [{}] } }, "lone \ud800 surrogate", "\udfff", { "key \udc00": 1 }, [["\ud83d"]], nested(40), "i".repeat(3000)];
const hostileSegments = ["%00", "..%2F..%2Fetc", "%27%20OR%201%3D1", "%F0%9F%98%80", "A".repeat(300), "A".repeat(5000), "1.0." + "9".repeat(3000), "00000000-0000-4000-8000-00000000000G", "1.0.0.0", "-1", "%25", "null", "%zz", "%E0%A4%A", "%ED%A0%80", "a%2"];
const hostileQueryValues = ["", "-5", "abc", "1e999", "%00", "true", "x".repeat(3000), "%zz", "%ED%A0%80", "%E0%A4%A", "%", "a".repeat(300)];
// Bodies no client library writes: nesting far past the stack, escaped lone surrogates, in values and keys.
const hostileRawBodies = ["{", "[", "nul", "\"unterminated", "{\"a\":1}{", "\uFEFF{}", "[".repeat(100_000) + "]".repeat(100_000), '{"a":'.repeat(20_000) + "1" + "}".repeat(20_000), '{"x":' + '{"type":"object","properties":{"a":'.repeat(3000) + "{}" + "}}".repeat(3000) + "}", '{"name":"\\ud800"}', '{"\\udc00x":1}', '{"name":["\\udfff\\ud800"]}'];

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
      const envelopeMissing = response.status >= 400 && (!response.body?.error?.code || response.body.error.requestId !== response.headers.get("x-request-id"));
      if (response.status >= 500 || envelopeMissing || !response.headers.get("x-request-id")) failures.push(`${method} ${path.slice(0, 200)} → ${response.status} ${response.text.slice(0, 200)}`);
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
          for (const value of hostileQueryValues) await check(upper, `${path}?${param.name}=${value}`, { key });
        }
        if (upper === "GET") continue;
        for (const body of hostileValues) await check(upper, path, { key, body });
        for (const raw of hostileRawBodies) await check(upper, path, { key, rawBody: raw, headers: { "Content-Type": "application/json" } });
        const properties = Object.keys(operation.requestBody?.content["application/json"].schema.properties ?? {});
        for (const property of properties) {
          for (const value of hostileValues) await check(upper, path, { key, body: { ...baseBody(template), [property]: value } });
        }
      }
    }
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(500);
  }, 300_000);

  it("methods Next.js and Node do not know, odd-cased ones and malformed requests: the envelope, X-Request-Id, and no stack trace in the log", async () => {
    // A server of its own, so that its log can be read.
    const database = process.env.KINDGI_TEST_DATABASE_URL ? await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL) : null;
    const server = await startServer({ env: { DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: newOperatorToken() } });
    try {
      const document = (await call("GET", "/v1/openapi.json")).body as { paths: Record<string, Record<string, unknown>> };
      const failures: string[] = [];
      const expectAnswer = (label: string, answer: RawAnswer, status: number, code: string, allow?: string) => {
        const problem =
          answer.status !== status ? `status ${answer.status}` :
          answer.body?.error?.code !== code ? `code ${answer.body?.error?.code}` :
          !answer.headers["x-request-id"] || answer.body.error.requestId !== answer.headers["x-request-id"] ? "no X-Request-Id" :
          allow !== undefined && answer.headers.allow !== allow ? `Allow ${answer.headers.allow}` : null;
        if (problem) failures.push(`${label}: ${problem} ${answer.text.slice(0, 200)}`);
      };
      for (const [template, operations] of Object.entries(document.paths)) {
        const path = concretePath(template, {});
        const served = Object.keys(operations).map((method) => method.toUpperCase());
        const allow = [...served, ...(served.includes("GET") ? ["HEAD"] : [])].sort().join(", ");
        for (const method of ["TRACE", "PROPFIND", "PURGE"]) expectAnswer(`${method} ${path}`, await httpRequest(server.baseUrl, method, path), 405, "method-not-allowed", allow);
        for (const method of ["get", "Post", "TRACK", "BREW"]) {
          expectAnswer(`${method} ${path}`, await rawSocketRequest(server.baseUrl, `${method} ${path} HTTP/1.1\r\nHost: kindgi.test\r\nConnection: close\r\n\r\n`), 405, "method-not-allowed", allow);
        }
        const options = await httpRequest(server.baseUrl, "OPTIONS", path);
        if (options.status !== 204 || !options.headers["x-request-id"] || options.headers.allow !== [...allow.split(", "), "OPTIONS"].sort().join(", ")) failures.push(`OPTIONS ${path}: ${options.status} ${JSON.stringify(options.headers)}`);
      }
      for (const method of ["TRACE", "PROPFIND", "OPTIONS"]) expectAnswer(`${method} unknown`, await httpRequest(server.baseUrl, method, "/v1/no-such-route"), 404, "not-found");
      expectAnswer("TRACE /health", await httpRequest(server.baseUrl, "TRACE", "/health"), 405, "method-not-allowed", "GET, HEAD");
      expectAnswer("CONNECT", await httpRequest(server.baseUrl, "CONNECT", "kindgi.test:443"), 405, "method-not-allowed");
      expectAnswer("header without colon", await rawSocketRequest(server.baseUrl, "GET /v1/tools HTTP/1.1\r\nHost: kindgi.test\r\nno colon here\r\n\r\n"), 400, "bad-input");
      expectAnswer("headers too large", await rawSocketRequest(server.baseUrl, `GET /v1/tools HTTP/1.1\r\nHost: kindgi.test\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`), 431, "headers-too-large");
      expect(failures).toEqual([]);
      expect(server.output()).not.toMatch(/HTTP method is unsupported|^\s+at /m);
    } finally {
      await server.stop();
      await database?.drop();
      if (server.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
    }
  }, 300_000);

  it("a body past 1 MiB is refused with 413 however it is sent, an endless chunked one while it is still being sent", async () => {
    const tenant = await newTenant();
    const declared = await call("POST", "/v1/projects", { key: tenant.key, body: { name: "x".repeat(3 * 1024 * 1024) } });
    expect([declared.status, declared.body?.error?.code, declared.body?.error?.requestId]).toEqual([413, "payload-too-large", declared.headers.get("x-request-id")]);

    const url = new URL(kindgi().baseUrl);
    let sent = 0;
    const answer = await new Promise<{ status: number; body: any; requestId: unknown }>((resolve, reject) => {
      const request = http.request({ host: url.hostname, port: url.port, method: "POST", path: "/v1/projects", headers: { Authorization: `Bearer ${tenant.key}`, "Content-Type": "application/json" } }, (response) => {
        let text = "";
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text), requestId: response.headers["x-request-id"] }));
      });
      request.on("error", reject);
      const chunk = Buffer.alloc(64 * 1024, " ");
      request.write("{");
      const pump = setInterval(() => {
        if (request.destroyed || sent > 256 * 1024 * 1024) return clearInterval(pump);
        request.write(chunk);
        sent += chunk.length;
      }, 2);
      request.on("close", () => clearInterval(pump));
    });
    // The envelope, with its request id. Usually 413; when the front cuts the stream while Next.js still holds part of
    // the last chunk, the route sees a truncated body and answers 400 bad-input (not JSON) instead — never a 500.
    expect([413, 400]).toContain(answer.status);
    expect(answer.body.error.code).toBe(answer.status === 413 ? "payload-too-large" : "bad-input");
    expect(answer.body.error.requestId).toBe(answer.requestId);
    // Answered long before the client gave up sending (it stops at 256 MiB).
    expect(sent).toBeLessThan(256 * 1024 * 1024);

    const within = await call("POST", "/v1/projects", { key: tenant.key, rawBody: `{"name":"just under the limit"}${" ".repeat(1024 * 1024 - 40)}`, headers: { "Content-Type": "application/json" } });
    expect(within.status).toBe(201);
  }, 120_000);
});
