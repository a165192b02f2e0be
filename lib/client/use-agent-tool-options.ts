"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import type { ToolOption } from "@/lib/client/agent-types";
import { agentKeys } from "@/lib/client/query-keys";

/** Catalog tools matching `q` (id, description, tags), for the agent editor's tool picker: the first 20. */
export function useAgentToolOptions(projectId: string, q: string) {
  return useQuery({
    queryKey: agentKeys.toolOptions(projectId, q),
    queryFn: ({ signal }) => apiFetch<Page<ToolOption>>("/v1/tools", { query: { projectId, q: q.trim() || undefined, limit: 20 }, signal }),
    enabled: Boolean(projectId),
    placeholderData: keepPreviousData,
  });
}
