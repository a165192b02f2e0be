/**
 * The catalog as an MCP server (DESIGN.md §9): `tools/list` and `tools/call` of the official SDK's server, mapped
 * onto the use cases (listProjectToolManifests, invokeTool). Stateless: every POST builds its own server and
 * transport, so any replica answers any request and nothing is kept between requests.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { AppError, isAppError } from "@/lib/errors";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import type { Actor } from "@/lib/services/actor";
import type { McpCatalog } from "@/lib/services/mcp-catalog";
import { listApprovals } from "@/lib/services/approvals";
import { mcpOriginOf } from "@/lib/services/run-origin";
import { getRun, waitUntilSettled, type RunView } from "@/lib/services/runs";
import { DEFAULT_MAX_WALL_MS } from "@/lib/kernel/journal";
import { toolIdsFor, toolNameFor } from "@/lib/doors/mcp/names";

/** Tools per page of `tools/list`. */
export const MCP_TOOLS_PAGE_SIZE = 50;

export const MCP_SERVER_INFO = { name: "kindgi", version: "1.0.0" } as const;

/**
 * Serves one Streamable HTTP POST (its JSON-RPC message already parsed) for the actor, over `catalog` (a project's,
 * lib/services/mcp-catalog.ts, or a toolset's). The catalog is opened before any protocol exchange: a `projectId` or
 * toolset that is not the caller's is the API's error.
 */
export async function serveMcpRequest(request: Request, message: unknown, actor: Actor, openCatalog: () => Promise<McpCatalog>): Promise<Response> {
  const catalog = await openCatalog();
  const server = mcpServerFor(actor, catalog);
  // Stateless (no session id) and answered as JSON: the request is complete when its answer is.
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, { parsedBody: message });
    if (response.status < 400) return response;
    // The transport refuses a request it cannot serve (Accept, Content-Type, a body that is no JSON-RPC message) with
    // a JSON-RPC error body; the API answers every refusal in its own envelope, with the same status.
    throw transportRefusal(response.status, await response.text());
  } finally {
    await server.close().catch(() => {});
  }
}

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

function mcpServerFor(actor: Actor, catalog: McpCatalog): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: "The tools of a Kindgi project. Every call is a run of the Kindgi kernel (listed under /v1/runs); a call that needs a person's approval answers with an error naming the approval.",
  });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const page = await catalog.list({ limit: MCP_TOOLS_PAGE_SIZE, cursor: request.params?.cursor }).catch((error: unknown) => {
      if (isAppError(error) && error.status === 400) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    });
    const tools = page.data.flatMap((manifest) => {
      const tool = toolOf(manifest);
      return tool ? [tool] : [];
    });
    return { tools, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => callTool(actor, catalog, request.params.name, request.params.arguments ?? {}));
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

async function callTool(actor: Actor, catalog: McpCatalog, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  for (const toolId of toolIdsFor(name)) {
    let started: RunView | null;
    try {
      started = await catalog.start(toolId, args, mcpOriginOf(actor));
    } catch (error) {
      if (isAppError(error) && error.status < 500) return errorResult(`${error.code}: ${error.message}`);
      throw error;
    }
    if (!started) continue;
    const run = await settled(actor, started);
    return await resultOf(actor, catalog, run);
  }
  throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
}

/** The run once it settled or waits (a suspended run), within its wall-clock budget. */
async function settled(actor: Actor, run: RunView): Promise<RunView> {
  if (run.status !== "pending" && run.status !== "running") return run;
  await waitUntilSettled(run.id, DEFAULT_MAX_WALL_MS + 30_000);
  return getRun(actor, run.id);
}

/** A settled (or still running) invocation as the call's result. */
async function resultOf(actor: Actor, catalog: McpCatalog, run: RunView): Promise<CallToolResult> {
  const meta = { _meta: { "kindgi/runId": run.id } };
  switch (run.status) {
    case "completed": {
      const output = catalog.outputOf ? catalog.outputOf(run) : run.output;
      const text = JSON.stringify(output ?? null);
      const structured = output !== null && typeof output === "object" && !Array.isArray(output) ? { structuredContent: output as Record<string, unknown> } : {};
      return { content: [{ type: "text", text }], ...structured, ...meta };
    }
    case "failed":
    case "cancelled": {
      const failure = run.failure ?? { code: run.status, message: `the run was ${run.status}` };
      return { ...errorResult(`${failure.code}: ${failure.message}`), ...meta };
    }
    case "suspended": {
      const pending = await listApprovals(actor, { runId: run.id, status: "pending" }, { limit: 1 });
      const approval = pending.data[0];
      if (approval) {
        return { ...errorResult(`waiting for approval ${approval.id}: a person decides it in the console at /approvals/${approval.id}; run ${run.id} continues once it is approved`), _meta: { "kindgi/runId": run.id, "kindgi/approvalId": approval.id } };
      }
      return { ...errorResult(`run ${run.id} is waiting (a paused call); it continues once the wait is completed`), ...meta };
    }
    default:
      return { ...errorResult(`run ${run.id} is still ${run.status}; its result will be at /v1/runs/${run.id}`), ...meta };
  }
}

const errorResult = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });
