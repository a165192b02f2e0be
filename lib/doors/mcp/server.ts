/**
 * The catalog as an MCP server (DESIGN.md §9): `tools/list` and `tools/call` of the official SDK's server, over an
 * McpCatalog (lib/services/mcp-catalog.ts: a project's, or a toolset's). Every request builds its own server and
 * transport, so any replica answers any request and nothing is kept in memory between requests; what must outlive a
 * request (a session, a call held for approval) is in the database, what is live (a call's logs and progress, its
 * run's state, catalog changes) comes from the event bus.
 *
 * `tools/call` is answered as an SSE stream (its notifications, then its result); everything else as JSON. A call
 * that waits for a person's approval stays open up to {@link approvalWaitMs} with a progress notification and a log
 * notification naming the approval and its console link; decided in time, it answers the outcome; else it answers
 * "waiting for approval", and the same call again from the same credential attaches to the same run.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, SetLevelRequestSchema, type CallToolResult, type LoggingLevel, type ServerNotification, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { AppError, isAppError } from "@/lib/errors";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import type { Actor } from "@/lib/services/actor";
import type { McpCatalog } from "@/lib/services/mcp-catalog";
import { getApproval, listApprovals, type ApprovalView } from "@/lib/services/approvals";
import { mcpOriginOf } from "@/lib/services/run-origin";
import { getRun, waitForRun, type RunView } from "@/lib/services/runs";
import { DEFAULT_MAX_WALL_MS } from "@/lib/kernel/journal";
import { isSettledStatus, type ToolLiveEvent } from "@/lib/kernel/types";
import { argumentsHash } from "@/lib/kernel/approval-policy";
import { eventBus } from "@/lib/services/event-bus";
import { isToolLiveEvent, toolLiveTopic } from "@/lib/services/live-tool-events";
import { answerHeldCalls, findHeldCall, holdCall, type HeldCallKey } from "@/lib/services/mcp-held-calls";
import { publicOrigin } from "@/lib/api/public-origin";
import { watchTenantChanges } from "@/lib/services/tenant-generation";
import { endSession, findSession, openSession, setSessionLogLevel, type McpSessionView } from "@/lib/services/mcp-sessions";
import { toolIdsFor, toolNameFor } from "@/lib/tools/mcp/names";
import { contentItemsOf } from "@/lib/doors/mcp/content";

/** Tools per page of `tools/list`. */
export const MCP_TOOLS_PAGE_SIZE = 50;

export const MCP_SERVER_INFO = { name: "kindgi", version: "1.0.0" } as const;

/** How long a call that waits for a person's approval stays open: KINDGI_MCP_APPROVAL_WAIT_MS, default 50 s (under the SDKs' 60 s request timeout). */
export function approvalWaitMs(): number {
  const configured = Number(process.env.KINDGI_MCP_APPROVAL_WAIT_MS);
  return Number.isFinite(configured) && configured >= 0 ? Math.min(configured, 15 * 60_000) : 50_000;
}

/** What one request serves, besides its catalog. */
type Serving = { actor: Actor; catalog: McpCatalog; server: string; consoleOrigin: string; signal: AbortSignal; session: McpSessionView | null };

/** The request's session (`Mcp-Session-Id`), or null without one; an unknown or ended one is the API's 404. */
async function sessionOf(request: Request, actor: Actor, server: string): Promise<McpSessionView | null> {
  const id = request.headers.get("mcp-session-id");
  if (id === null) return null;
  const session = await findSession(actor, server, id.trim());
  if (!session) throw new AppError("not-found", `MCP session ${JSON.stringify(id.slice(0, 64))} is unknown or has ended: initialize a new one`);
  return session;
}

const serverKeyOf = (request: Request, catalog: McpCatalog) => `${new URL(request.url).pathname}|${catalog.projectId}`;

/** Ends the request's session (DELETE with `Mcp-Session-Id`). */
export async function endMcpSession(request: Request, actor: Actor, openCatalog: () => Promise<McpCatalog>): Promise<Response> {
  const catalog = await openCatalog();
  const id = request.headers.get("mcp-session-id");
  if (id === null) throw new AppError("bad-input", "DELETE ends a session: send its Mcp-Session-Id header", { issues: [{ path: "/headers/mcp-session-id", message: "is required" }] });
  if (!(await endSession(actor, serverKeyOf(request, catalog), id.trim()))) throw new AppError("not-found", `MCP session ${JSON.stringify(id.slice(0, 64))} is unknown or has ended`);
  return Response.json({ id: id.trim(), deleted: true });
}

/**
 * Serves one Streamable HTTP POST (its JSON-RPC message already parsed) for the actor, over `catalog` (a project's,
 * lib/services/mcp-catalog.ts, or a toolset's). The catalog is opened before any protocol exchange: a `projectId` or
 * toolset that is not the caller's is the API's error.
 */
export async function serveMcpRequest(request: Request, message: unknown, actor: Actor, openCatalog: () => Promise<McpCatalog>): Promise<Response> {
  const catalog = await openCatalog();
  const serverKey = serverKeyOf(request, catalog);
  const initializing = methodOf(message) === "initialize";
  // `initialize` opens a session (whatever session header it carries); any other request may name one.
  const session = initializing ? null : await sessionOf(request, actor, serverKey);
  const serving: Serving = { actor, catalog, server: serverKey, consoleOrigin: publicOrigin(request), signal: request.signal, session };
  const server = mcpServerFor(serving);
  // A tool call is answered as an SSE stream (its notifications before its result); the rest as JSON.
  const streamed = methodOf(message) === "tools/call";
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streamed, keepAliveMs: KEEPALIVE_MS });
  await server.connect(transport);
  let response: Response;
  try {
    response = await transport.handleRequest(request, { parsedBody: message });
  } catch (error) {
    await server.close().catch(() => {});
    throw error;
  }
  if (response.status >= 400) {
    await server.close().catch(() => {});
    // The transport refuses a request it cannot serve (Accept, Content-Type, a body that is no JSON-RPC message) with
    // a JSON-RPC error body; the API answers every refusal in its own envelope, with the same status.
    throw transportRefusal(response.status, await response.text());
  }
  // A JSON answer is complete; a stream ends (and the server with it) once the call's result is written.
  if (!streamed) await server.close().catch(() => {});
  if (initializing && response.status === 200) {
    const version = (message as { params?: { protocolVersion?: unknown } }).params?.protocolVersion;
    const id = await openSession(actor, serverKey, typeof version === "string" ? version.slice(0, 32) : null);
    const headers = new Headers(response.headers);
    headers.set("mcp-session-id", id);
    return new Response(response.body, { status: response.status, headers });
  }
  return response;
}

/** How often an open stream says it is alive (an SSE comment), for proxies that close quiet connections. */
const KEEPALIVE_MS = 25_000;
/** Changes within this time are told once. */
const LIST_CHANGED_DEBOUNCE_MS = 150;

/**
 * Serves a GET: the stream of what the server says unasked — `notifications/tools/list_changed` whenever the
 * tenant's catalog (or anything of the tenant) changes, on any replica — until the client goes away. Stateless
 * like the POSTs: a client may open it on any replica.
 */
export async function serveMcpStream(request: Request, actor: Actor, openCatalog: () => Promise<McpCatalog>): Promise<Response> {
  const catalog = await openCatalog();
  const serverKey = serverKeyOf(request, catalog);
  const session = await sessionOf(request, actor, serverKey);
  const serving: Serving = { actor, catalog, server: serverKey, consoleOrigin: publicOrigin(request), signal: request.signal, session };
  const server = mcpServerFor(serving);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, keepAliveMs: KEEPALIVE_MS });
  await server.connect(transport);
  const response = await transport.handleRequest(request);
  if (response.status >= 400 || !response.body) {
    await server.close().catch(() => {});
    throw transportRefusal(response.status, response.body ? await response.text() : "");
  }
  let timer: ReturnType<typeof setTimeout> | null = null;
  const stopWatching = watchTenantChanges((tenantId) => {
    if (tenantId !== null && tenantId !== actor.tenantId) return;
    timer ??= setTimeout(() => {
      timer = null;
      void server.sendToolListChanged().catch(() => {});
    }, LIST_CHANGED_DEBOUNCE_MS);
  });
  const finish = () => {
    stopWatching();
    if (timer) clearTimeout(timer);
    void server.close().catch(() => {});
  };
  request.signal.addEventListener("abort", finish, { once: true });
  // The transport's stream (with its keep-alive comments), ended here when the client goes away.
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // A first comment at once: the client knows the stream is open (a proxy sends the headers now, not at the first event).
      controller.enqueue(new TextEncoder().encode(": open\n\n"));
    },
    async pull(controller) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) {
        finish();
        controller.close();
      } else controller.enqueue(value);
    },
    cancel() {
      finish();
      void reader.cancel().catch(() => {});
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

const methodOf = (message: unknown): unknown => (typeof message === "object" && message !== null && !Array.isArray(message) ? (message as { method?: unknown }).method : undefined);

function transportRefusal(status: number, text: string): AppError {
  let message = `the MCP request was refused (HTTP ${status})`;
  let rpcCode: unknown;
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown; code?: unknown } };
    if (typeof body.error?.message === "string") message = body.error.message;
    rpcCode = body.error?.code;
  } catch {
    // not JSON: the status says enough
  }
  const code = status === 406 ? "not-acceptable" : status === 415 ? "unsupported-media-type" : "bad-input";
  return new AppError(code, message, typeof rpcCode === "number" ? { jsonRpcCode: rpcCode } : undefined);
}

function mcpServerFor(serving: Serving): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, logging: {} },
    instructions:
      "The tools of a Kindgi project (all of its catalog, or the tools and agents a toolset chose, each at its pinned version). Every call is a run of the Kindgi kernel (listed under /v1/runs). A call that needs a person's approval waits for it (progress and log notifications name the approval and its console link); when it is not decided in time, the call answers an error naming the approval, and calling the same tool with the same arguments again waits for the same approval.",
  });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const page = await serving.catalog.list({ limit: MCP_TOOLS_PAGE_SIZE, cursor: request.params?.cursor }).catch((error: unknown) => {
      if (isAppError(error) && error.status === 400) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    });
    const tools = page.data.flatMap((manifest) => {
      const tool = toolOf(manifest);
      return tool ? [tool] : [];
    });
    return { tools, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });
  // The level is kept with the session (a client without one gets every level).
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    if (serving.session) await setSessionLogLevel(serving.session.id, request.params.level);
    return {};
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const signal = AbortSignal.any([extra.signal, serving.signal]);
    const notifier = new Notifier((notification) => extra.sendNotification(notification), request.params._meta?.progressToken, serving.session?.logLevel ?? null);
    return callTool(serving, request.params.name, request.params.arguments ?? {}, notifier, signal);
  });
  return server;
}

/** A manifest as an MCP tool, or null when its id has no valid name. */
export function toolOf(manifest: ToolManifest): Tool | null {
  const name = toolNameFor(manifest.id);
  if (name === null) return null;
  const kinds = new Set((manifest.effects ?? []).map((effect) => effect.kind as string));
  const title = typeof manifest.metadata?.title === "string" ? manifest.metadata.title : undefined;
  const output = manifest.output as Record<string, unknown> | undefined;
  return {
    name,
    ...(title ? { title } : {}),
    description: manifest.description,
    inputSchema: manifest.input as Tool["inputSchema"],
    ...(output && output.type === "object" ? { outputSchema: output as Tool["outputSchema"] } : {}),
    annotations: {
      ...(title ? { title } : {}),
      readOnlyHint: manifest.mutating === false,
      destructiveHint: kinds.has("deletes") || kinds.has("writes"),
      openWorldHint: kinds.has("network") || kinds.has("external-side-effect"),
    },
  };
}

/** Sends a call's notifications: progress only when the client asked for it (a token), each one further than the last. */
class Notifier {
  private last = -Infinity;
  constructor(
    private readonly send: (notification: ServerNotification) => Promise<void>,
    private readonly progressToken: string | number | undefined,
    private readonly minLevel: string | null,
  ) {}

  log(level: LoggingLevel, logger: string, data: string): void {
    if (this.minLevel !== null && SEVERITY.indexOf(level) < SEVERITY.indexOf(this.minLevel as LoggingLevel)) return;
    void this.send({ method: "notifications/message", params: { level, logger, data } }).catch(() => {});
  }

  progress(progress: number, total?: number, message?: string): void {
    if (this.progressToken === undefined || progress <= this.last) return;
    this.last = progress;
    void this.send({ method: "notifications/progress", params: { progressToken: this.progressToken, progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) } }).catch(() => {});
  }

  /** A tool's log line or progress, heard on the bus. */
  relay(event: ToolLiveEvent): void {
    if (event.kind === "log") this.log(LOG_LEVELS[event.line.level] ?? "info", event.toolId, event.line.message);
    else this.progress(event.progress, event.total, event.message);
  }
}

/** MCP's log levels, least severe first. */
const SEVERITY: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

const LOG_LEVELS: Record<string, LoggingLevel> = { debug: "debug", info: "info", warn: "warning", error: "error" };

async function callTool(serving: Serving, name: string, args: Record<string, unknown>, notifier: Notifier, signal: AbortSignal): Promise<CallToolResult> {
  const key: HeldCallKey = { server: serving.server, toolName: name, argumentsHash: argumentsHash(args) };
  // The same call again, while an earlier one is held for its approval: the same run, no second approval.
  const held = await findHeldCall(serving.actor, key);
  if (held) return follow(serving, key, held.runId, null, liveEvents(notifier).of(held.runId), notifier, signal, true);
  // Heard from before the run starts (its first log line may come before its id does).
  const live = liveEvents(notifier);
  try {
    for (const toolId of toolIdsFor(name)) {
      let started: RunView | null;
      try {
        started = await serving.catalog.start(toolId, args, mcpOriginOf(serving.actor));
      } catch (error) {
        if (isAppError(error) && error.status < 500) return errorResult(`${error.code}: ${error.message}`);
        throw error;
      }
      if (!started) continue;
      return await follow(serving, key, started.id, started, live.of(started.id), notifier, signal, false);
    }
  } finally {
    live.close();
  }
  throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
}

/**
 * Relays one run's tool logs and progress to the client. Until the run is named, every run's are kept (those of
 * runs of this process, the only ones that can start before their id is known here); then the named run's are
 * relayed, and only its own from then on.
 */
function liveEvents(notifier: Notifier) {
  const early = new Map<string, ToolLiveEvent[]>();
  let closeEarly: (() => void) | null = eventBus().subscribePrefix(TOOL_TOPIC_PREFIX, (topic, message) => {
    if (!isToolLiveEvent(message)) return;
    const kept = early.get(topic) ?? [];
    if (kept.length < 1000) kept.push(message);
    early.set(topic, kept);
  });
  let closeRun: (() => void) | null = null;
  const close = () => {
    closeEarly?.();
    closeEarly = null;
    closeRun?.();
    closeRun = null;
  };
  return {
    of(runId: string) {
      const topic = toolLiveTopic(runId);
      closeRun = eventBus().subscribe(topic, (message) => {
        if (isToolLiveEvent(message)) notifier.relay(message);
      });
      for (const event of early.get(topic) ?? []) notifier.relay(event);
      closeEarly?.();
      closeEarly = null;
      early.clear();
      return { close };
    },
    close,
  };
}

const TOOL_TOPIC_PREFIX = toolLiveTopic("");

/**
 * Follows a call's run to its answer: relays its tools' logs and progress, waits while it runs (its wall-clock
 * budget), and while it waits for an approval (up to the bound); then answers its outcome, or "waiting".
 */
async function follow(serving: Serving, key: HeldCallKey, runId: string, started: RunView | null, live: { close(): void }, notifier: Notifier, signal: AbortSignal, attached: boolean): Promise<CallToolResult> {
  try {
    const bound = Date.now() + approvalWaitMs();
    let announced: string | null = null;
    // The run as the call's start answered it (settled or waiting), else as it is once it is.
    let known = started && isSettledStatus(started.status) ? started : null;
    for (;;) {
      if (!known) await waitForRun(runId, (row) => isSettledStatus(row.status), DEFAULT_MAX_WALL_MS + 30_000, signal);
      const run = known ?? (await getRun(serving.actor, runId));
      known = null;
      if (run.status !== "suspended") {
        if (attached) await answerHeldCalls(serving.actor, runId);
        return await outcomeOf(serving, run, attached || announced !== null);
      }
      const approval = await pendingApproval(serving.actor, runId);
      if (!approval) return { ...errorResult(`run ${run.id} is waiting (a paused call); it continues once the wait is completed: follow it at /v1/runs/${run.id}`), ...runMeta(run.id) };
      const link = `${serving.consoleOrigin}/approvals/${approval.id}`;
      if (announced !== approval.id) {
        announced = approval.id;
        const words = `waiting for approval ${approval.id} of ${approval.tool ? `${approval.tool.id}@${approval.tool.version}` : "the call"}: decide it at ${link}`;
        notifier.progress(0, undefined, words);
        notifier.log("notice", "kindgi.approvals", words);
      }
      const left = bound - Date.now();
      if (left <= 0 || signal.aborted) {
        await holdCall(serving.actor, key, { runId, approvalId: approval.id, expiresAt: new Date(approval.expiresAt) });
        return {
          ...errorResult(`waiting for approval ${approval.id}: a person decides it in the console at ${link}; call this tool again with the same arguments to wait for its outcome (run ${runId})`),
          _meta: { "kindgi/runId": runId, "kindgi/approvalId": approval.id, "kindgi/approvalUrl": link },
        };
      }
      // Until the run leaves its wait (the approval decided, or expired) or the bound.
      await waitForRun(runId, (run) => run.status !== "suspended", left, signal);
    }
  } finally {
    live.close();
  }
}

async function pendingApproval(actor: Actor, runId: string): Promise<ApprovalView | null> {
  const pending = await listApprovals(actor, { runId, status: "pending" }, { limit: 1 });
  return pending.data[0] ?? null;
}

const runMeta = (runId: string) => ({ _meta: { "kindgi/runId": runId } });

/** A settled (or still running) call's answer; a call a person decided says how. */
async function outcomeOf(serving: Serving, run: RunView, waited: boolean): Promise<CallToolResult> {
  const decided = waited ? await decidedApproval(serving.actor, run.id) : null;
  const meta = { _meta: { "kindgi/runId": run.id, ...(decided ? { "kindgi/approvalId": decided.id, "kindgi/approval": decided.status, ...(decided.editedArguments != null ? { "kindgi/editedArguments": decided.editedArguments } : {}) } : {}) } };
  switch (run.status) {
    case "completed": {
      const output = serving.catalog.outputOf ? serving.catalog.outputOf(run) : run.output;
      const text = JSON.stringify(output ?? null);
      const structured = output !== null && typeof output === "object" && !Array.isArray(output) ? { structuredContent: output as Record<string, unknown> } : {};
      const edited = decided?.editedArguments != null ? [{ type: "text" as const, text: `A person approved this call with edited arguments: ${JSON.stringify(decided.editedArguments)}` }] : [];
      // An output in the shape of an MCP tool's content (an upstream MCP tool's, lib/tools/mcp/invoke.ts) is that content.
      const items = contentItemsOf(output);
      return { content: [...(items ?? [{ type: "text" as const, text }]), ...edited], ...structured, ...meta };
    }
    case "failed":
    case "cancelled": {
      const failure = run.failure ?? { code: run.status, message: `the run was ${run.status}` };
      return { ...errorResult(`${failure.code}: ${failure.message}`), ...meta };
    }
    default:
      return { ...errorResult(`run ${run.id} is still ${run.status}; its result will be at /v1/runs/${run.id}`), ...meta };
  }
}

/** The run's decided tool-call approval, if a person decided one. */
async function decidedApproval(actor: Actor, runId: string): Promise<ApprovalView | null> {
  const decided = await listApprovals(actor, { runId, status: "decided" }, { limit: 1 });
  const approval = decided.data[0];
  return approval ? getApproval(actor, approval.id) : null;
}

const errorResult = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });
