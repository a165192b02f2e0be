import { startRecordingServer, sendJson, type RecordingServer } from "../lib/tools/invokers/testing/recording-server";
import type { E2eState } from "./state";

/** /v1 with the bootstrap key, for `beforeAll` hooks (the `api` fixture is per test). */
export async function bootstrapCall<T = any>(e2e: E2eState, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${e2e.baseUrl}${path}`, { method, headers: { Authorization: `Bearer ${e2e.bootstrapKey}`, ...(body !== undefined ? { "Content-Type": "application/json" } : {}) }, body: body !== undefined ? JSON.stringify(body) : undefined });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

/**
 * A dictionary server on 127.0.0.1 (`/lookup` answers after `?ms=` milliseconds) and an HTTP tool pointed at it,
 * and an agent (dev-echo, the built-in provider that is not a real model) that calls the tool and answers with its
 * result. The agent takes a `customer` parameter its instructions use. `preferredProvider: "scripted"` makes it
 * answer from a script in the user message instead.
 */
export async function dictionaryAgent(e2e: E2eState, stamp: string, options: { delayMs?: number; maxSteps?: number; suffix?: string; preferredProvider?: "scripted" } = {}) {
  const server: RecordingServer = await startRecordingServer(async (request, response) => {
    const url = new URL(request.url, "http://x");
    const ms = Number(url.searchParams.get("ms") ?? 0);
    if (ms) await new Promise((resolve) => setTimeout(resolve, ms));
    const body = request.body ? (JSON.parse(request.body) as { word?: string }) : {};
    sendJson(response, 200, { definition: `a word: ${body.word ?? "?"}` });
  });
  const suffix = options.suffix ?? "";
  const toolId = `e2e.lookup${suffix}-${stamp}`;
  const agentId = `e2e.dictionary${suffix}-${stamp}`;
  const tool = await bootstrapCall(e2e, "POST", "/v1/tools", {
    projectId: e2e.defaultProjectId,
    id: toolId,
    version: "1.0.0",
    description: "Looks a word up in the dictionary.",
    mutating: false,
    input: { type: "object", required: ["word"], additionalProperties: false, properties: { word: { type: "string", description: "The word" } } },
    output: { type: "object" },
    network: { kind: "allowlist", hosts: [server.hostPort] },
    spec: { kind: "http", method: "POST", urlTemplate: `${server.origin}/lookup?ms=${options.delayMs ?? 0}`, requestBody: { kind: "json-input" } },
  });
  if (tool.status !== 201) throw new Error(`tool registration failed: ${JSON.stringify(tool.body)}`);
  const agent = await bootstrapCall(e2e, "POST", "/v1/agents", {
    projectId: e2e.defaultProjectId,
    id: agentId,
    version: "1.0.0",
    name: `Dictionary${suffix}`,
    description: "Looks words up.",
    instructions: "Help {{ customer }} with words.",
    parameters: [{ name: "customer", type: "string", required: true, description: "Who is asking" }],
    capabilities: [{ kind: "llm-inference" }],
    tools: [{ id: toolId, version: "^1.0.0" }],
    retrieval: [],
    guardrails: [],
    ...(options.maxSteps ? { budget: { maxSteps: options.maxSteps } } : {}),
    ...(options.preferredProvider ? { preferredProvider: options.preferredProvider } : {}),
  });
  if (agent.status !== 201) throw new Error(`agent registration failed: ${JSON.stringify(agent.body)}`);
  return { server, toolId, agentId };
}
