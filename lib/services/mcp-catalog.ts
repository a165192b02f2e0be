/**
 * What an MCP server of this deployment offers (DESIGN.md §9): a project's whole catalog at `/v1/mcp`, or a toolset's
 * chosen tools and agents at `/v1/mcp/toolsets/{toolsetId}` (lib/services/toolsets.ts). The door
 * (lib/doors/mcp/server.ts) lists a catalog's pages and calls what a name resolves to; it never reads the database.
 */
import { isAppError } from "@/lib/errors";
import type { ToolManifest } from "@/lib/tools/manifest-schema";
import type { Actor } from "@/lib/services/actor";
import type { RunOrigin } from "@/lib/services/run-origin";
import type { RunView } from "@/lib/services/runs";
import { invokeTool } from "@/lib/services/invoke-tool";
import { listProjectToolManifests, resolveToolProject } from "@/lib/services/tools";

/** A page of what `tools/list` shows: each entry as a tool manifest (an agent's is made up by its toolset). */
export type McpCatalogPage = { data: ToolManifest[]; nextCursor?: string };

export interface McpCatalog {
  /** The project every call runs in. */
  readonly projectId: string;
  /** A page of the tools, in a stable order; `cursor` is one a page gave (else the API's 400 bad-input). */
  list(page: { limit: number; cursor?: string }): Promise<McpCatalogPage>;
  /**
   * Runs the call of `toolId` (an id a page listed) with `args` and answers the run once it settled or waits
   * (suspended), within its wall-clock budget, as POST /v1/runs does; null when the id is no tool of this catalog.
   * Bad arguments are the API's errors. The run executes in this process: its live tool events can be heard here
   * from its start.
   */
  start(toolId: string, args: Record<string, unknown>, origin: RunOrigin): Promise<RunView | null>;
  /** The result of a completed run this catalog started (default: the run's `output`); an agent's is its turn's answer. */
  outputOf?(run: RunView): unknown;
}

/** Errors of invokeTool that mean the id is no tool of the project. */
const UNKNOWN_TOOL_CODES = new Set(["not-found", "tool-project-mismatch", "tool-version-unregistered"]);

/** The project's catalog: its active tools at their latest version, and the built-in tools. */
export async function projectCatalog(actor: Actor, requestedProjectId: string | undefined): Promise<McpCatalog> {
  const projectId = await resolveToolProject(actor, requestedProjectId);
  return {
    projectId,
    list: (page) => listProjectToolManifests(actor, projectId, page),
    async start(toolId, args, origin) {
      try {
        return (await invokeTool(actor, toolId, null, { projectId, arguments: args, origin })).body;
      } catch (error) {
        if (isAppError(error) && UNKNOWN_TOOL_CODES.has(error.code)) return null;
        throw error;
      }
    },
  };
}
