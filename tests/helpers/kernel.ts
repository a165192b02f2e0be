import { call, type ApiResponse, type TestTenant } from "./api";
import { sendJson, startRecordingServer, type RecordingServer } from "../../lib/tools/invokers/testing/recording-server";

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2, 6)}`;

/** Registers an agent (scripted provider by default) and returns its id and version. */
export async function registerAgent(tenant: TestTenant, overrides: Record<string, unknown> = {}): Promise<{ id: string; version: string }> {
  const body = {
    id: unique("test.agent"),
    version: "1.0.0",
    name: "Test agent",
    instructions: "You are a test agent.",
    capabilities: [{ kind: "llm-inference" }],
    tools: [],
    retrieval: [],
    guardrails: [],
    preferredProvider: "scripted",
    projectId: tenant.projectId,
    ...overrides,
  };
  const response = await call("POST", "/v1/agents", { key: tenant.key, body });
  if (response.status !== 201) throw new Error(`agent registration failed: ${response.status} ${response.text}`);
  return { id: body.id as string, version: body.version as string };
}

/** Registers a tool and returns its id. */
export async function registerTool(tenant: TestTenant, manifest: Record<string, unknown>): Promise<string> {
  const response = await call("POST", "/v1/tools", { key: tenant.key, body: { projectId: tenant.projectId, ...manifest } });
  if (response.status !== 201) throw new Error(`tool registration failed: ${response.status} ${response.text}`);
  return manifest.id as string;
}

/** An HTTP tool calling `path` on the recording server (allowlisted), read-only unless said otherwise. */
export function httpTool(server: RecordingServer, overrides: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) {
  return {
    id: unique("test.http"),
    description: "Looks a word up on the test server.",
    version: "1.0.0",
    input: { type: "object", properties: { word: { type: "string" } }, required: ["word"], additionalProperties: false },
    output: { type: "object" },
    mutating: false,
    network: { kind: "allowlist", hosts: [server.hostPort] },
    spec: { kind: "http", method: "POST", urlTemplate: `${server.origin}/lookup`, requestBody: { kind: "json-input" }, ...spec },
    ...overrides,
  };
}

/** The user message the scripted provider reads. */
export const script = (...steps: unknown[]) => JSON.stringify({ script: steps });

/** POST /v1/runs. */
export function startRun(tenant: TestTenant, agent: { id: string; version?: string }, userMessage: string, extra: { conversationId?: string; parameters?: Record<string, unknown>; wait?: boolean; dryRun?: boolean; key?: string } = {}): Promise<ApiResponse> {
  const input: Record<string, unknown> = { userMessage };
  if (extra.conversationId) input.conversationId = extra.conversationId;
  if (extra.parameters) input.parameters = extra.parameters;
  const options: Record<string, unknown> = {};
  if (extra.wait !== undefined) options.wait = extra.wait;
  if (extra.dryRun !== undefined) options.dryRun = extra.dryRun;
  return call("POST", "/v1/runs", { key: extra.key ?? tenant.key, body: { agent, input, ...(Object.keys(options).length ? { options } : {}) } });
}

/** Runs a turn with wait and asserts the 201. */
export async function runTurn(tenant: TestTenant, agent: { id: string; version?: string }, userMessage: string, extra: Parameters<typeof startRun>[3] = {}) {
  const response = await startRun(tenant, agent, userMessage, extra);
  if (response.status !== 201) throw new Error(`run failed to settle: ${response.status} ${response.text}`);
  return response.body;
}

/** Every journal event of a run. */
export async function journal(tenant: TestTenant, runId: string): Promise<any[]> {
  const events: any[] = [];
  for (let since = 0; ; ) {
    const response = await call("GET", `/v1/runs/${runId}/journal?since=${since}&limit=1000`, { key: tenant.key });
    if (response.status !== 200) throw new Error(`journal failed: ${response.status} ${response.text}`);
    events.push(...response.body.data);
    if (!response.body.hasMore) return events;
    since = events[events.length - 1].seq;
  }
}

/** Polls GET /v1/runs/{id} until `done(run)` or the timeout. */
export async function waitForRun(tenant: TestTenant, runId: string, done: (run: any) => boolean = (run) => ["completed", "failed", "cancelled", "suspended"].includes(run.status), timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await call("GET", `/v1/runs/${runId}`, { key: tenant.key });
    if (response.status === 200 && done(response.body)) return response.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not reach the expected state: ${response.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a turn with wait; each time it is suspended on an approval (a mutating call), a person approves it, until
 * the run is finished. Returns the finished run.
 */
export async function runTurnApproving(tenant: TestTenant, agent: { id: string; version?: string }, userMessage: string, extra: Parameters<typeof startRun>[3] = {}) {
  let run = await runTurn(tenant, agent, userMessage, extra);
  for (let rounds = 0; run.status === "suspended" && rounds < 50; rounds++) {
    const pending = await call("GET", `/v1/approvals?runId=${run.id}&status=pending`, { key: tenant.key });
    for (const approval of pending.body.data) {
      const decided = await call("POST", `/v1/approvals/${approval.id}/complete`, { key: tenant.key, body: { decision: "approve" } });
      if (decided.status !== 200) throw new Error(`approval failed: ${decided.status} ${decided.text}`);
    }
    // The decision puts the run back to running at once: the next settled state is its end or its next wait.
    run = await waitForRun(tenant, run.id);
  }
  return run;
}

/**
 * A receiving server that honours `Idempotency-Key` as a payment API does: the first request of a key is executed
 * (after `callMs`, so a run can be interrupted mid-call) and its answer kept; a repeat of the key gets the kept
 * answer, executed no more. `received` counts the requests of each key, `executions` the executions.
 */
export async function startIdempotentReceiver(callMs: number): Promise<{ server: RecordingServer; received: Map<string, number>; executions: Map<string, number>; clear: () => void }> {
  const received = new Map<string, number>();
  const executions = new Map<string, number>();
  const answers = new Map<string, unknown>();
  const server = await startRecordingServer(async (request, response) => {
    const key = String(request.headers["idempotency-key"] ?? "");
    received.set(key, (received.get(key) ?? 0) + 1);
    if (!answers.has(key)) await sleep(callMs);
    if (!answers.has(key)) {
      executions.set(key, (executions.get(key) ?? 0) + 1);
      answers.set(key, { charged: JSON.parse(request.body).word });
    }
    sendJson(response, 200, answers.get(key));
  });
  const clear = () => {
    received.clear();
    executions.clear();
    answers.clear();
  };
  return { server, received, executions, clear };
}
