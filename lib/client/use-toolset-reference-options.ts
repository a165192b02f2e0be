"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import type { AgentSummary, ToolOption } from "@/lib/client/agent-types";
import { toolsetKeys } from "@/lib/client/query-keys";

/** A tool or agent a toolset row may name: its id, its latest active version and a line about it. */
export type ReferenceOption = { id: string; latestVersion: string; note: string };

/**
 * The project's tools (GET /v1/tools, built-ins included) or agents (GET /v1/agents) matching `q`, the first 50,
 * as suggestions for a toolset row.
 */
export function useToolsetReferenceOptions(projectId: string, kind: "tools" | "agents", q: string) {
  return useQuery({
    queryKey: toolsetKeys.options(projectId, kind, q.trim()),
    queryFn: async ({ signal }): Promise<ReferenceOption[]> => {
      const query = { projectId, q: q.trim() || undefined, limit: 50 };
      if (kind === "tools") {
        const page = await apiFetch<Page<ToolOption>>("/v1/tools", { query, signal });
        return page.data.map((tool) => ({ id: tool.toolId, latestVersion: tool.latestVersion, note: [tool.builtIn ? "built-in" : null, tool.mutating ? "mutating" : "read-only"].filter(Boolean).join(", ") }));
      }
      const page = await apiFetch<Page<AgentSummary>>("/v1/agents", { query, signal });
      return page.data.map((agent) => ({ id: agent.agentId, latestVersion: agent.latestVersion, note: agent.name }));
    },
    enabled: Boolean(projectId),
    placeholderData: keepPreviousData,
  });
}
