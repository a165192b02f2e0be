"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import type { AgentSummary } from "@/lib/client/agent-types";
import { agentKeys } from "@/lib/client/query-keys";

/** The project's agents (latest active version of each), ordered by id, 50 a page; `q` searches id, name, description and tags. */
export function useAgents(projectId: string, filters: { q?: string } = {}) {
  return useInfiniteQuery({
    queryKey: agentKeys.list(projectId, filters),
    queryFn: ({ pageParam, signal }) =>
      apiFetch<Page<AgentSummary>>("/v1/agents", { query: { projectId, q: filters.q || undefined, limit: 50, cursor: pageParam }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
    enabled: Boolean(projectId),
  });
}
