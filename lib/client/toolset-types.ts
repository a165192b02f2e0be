/** Shapes of the /v1/toolsets responses the console reads (the OpenAPI document at /v1/openapi.json is the reference). */

/** A reference a toolset holds: a tool or agent id and a semver range (`^1`, `1.4.2`, `*`). */
export type ToolsetReference = { id: string; version: string };

/** What a reference resolves to now: the highest active version in `range`, or null when none matches. */
export type ToolsetResolution = { id: string; range: string; version: string | null };

/** A toolset: a named selection of a project's tools and agents, served as its own MCP server at `mcpPath`. */
export type Toolset = {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  tools: ToolsetReference[];
  agents: ToolsetReference[];
  resolved: { tools: ToolsetResolution[]; agents: ToolsetResolution[] };
  /** `/v1/mcp/toolsets/<id>`: the toolset's MCP endpoint, relative to the server's origin. */
  mcpPath: string;
  createdAt: string;
  updatedAt: string;
};

/** The body of POST /v1/toolsets (and of PATCH /v1/toolsets/{id}, without projectId). */
export type ToolsetBody = {
  name: string;
  description?: string | null;
  projectId?: string;
  tools: ToolsetReference[];
  agents?: ToolsetReference[];
};
