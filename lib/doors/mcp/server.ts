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
import { invokeTool } from "@/lib/services/invoke-tool";
import { listProjectToolManifests, resolveToolProject } from "@/lib/services/tools";
import { listApprovals } from "@/lib/services/approvals";
import { mcpOriginOf } from "@/lib/services/run-origin";
import type { RunView } from "@/lib/services/runs";
import { toolIdsFor, toolNameFor } from "@/lib/doors/mcp/names";

/** Tools per page of `tools/list`. */
export const MCP_TOOLS_PAGE_SIZE = 50;

export const MCP_SERVER_INFO = { name: "kindgi", version: "1.0.0" } as const;

/** Serves one Streamable HTTP POST (its JSON-RPC message already parsed) for the actor, in `projectId` or the default project. */
export async function serveMcpRequest(request: Request, message: unknown, actor: Actor, requestedProjectId: string | undefined): Promise<Response> {
  // A `projectId` that is no project of the caller is the API's 400 before any protocol exchange.
  const projectId = await resolveToolProject(actor, requestedProjectId);
  const server = mcpServerFor(actor, projectId);
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

function mcpServerFor(actor: Actor, projectId: string): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: "The tools of a Kindgi project. Every call is a run of the Kindgi kernel (listed under /v1/runs); a call that needs a person's approval answers with an error naming the approval.",
  });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const page = await listProjectToolManifests(actor, projectId, { limit: MCP_TOOLS_PAGE_SIZE, cursor: request.params?.cursor }).catch((error: unknown) => {
      if (isAppError(error) && error.status === 400) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    });
    const tools = page.data.flatMap((manifest) => {
      const tool = toolOf(manifest);
      return tool ? [tool] : [];
    });
    return { tools, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => callTool(actor, projectId, request.params.name, request.params.arguments ?? {}));
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

/** Errors of invokeTool that mean the name is no tool of the project this server serves. */
const UNKNOWN_TOOL_CODES = new Set(["not-found", "tool-project-mismatch", "tool-version-unregistered"]);

async function callTool(actor: Actor, projectId: string, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  let lastError: unknown = null;
  for (const toolId of toolIdsFor(name)) {
    try {
      const { body: run } = await invokeTool(actor, toolId, null, { projectId, arguments: args, origin: mcpOriginOf(actor) });
      return await resultOf(actor, run);
    } catch (error) {
      if (isAppError(error) && UNKNOWN_TOOL_CODES.has(error.code)) {
        lastError = error;
        continue;
      }
      if (isAppError(error) && error.status < 500) return errorResult(`${error.code}: ${error.message}`);
      throw error;
    }
  }
  throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`, lastError && isAppError(lastError) ? { code: lastError.code } : undefined);
}

/** A settled (or still running) invocation as the call's result. */
async function resultOf(actor: Actor, run: RunView): Promise<CallToolResult> {
  const meta = { _meta: { "kindgi/runId": run.id } };
  switch (run.status) {
    case "completed": {
      const text = JSON.stringify(run.output ?? null);
      const structured = run.output !== null && typeof run.output === "object" && !Array.isArray(run.output) ? { structuredContent: run.output as Record<string, unknown> } : {};
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
