"use client";
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import { toolKeys } from "@/lib/client/query-keys";
import type { ToolFilters, ToolSummary } from "@/lib/client/tool-types";

export const TOOLS_PAGE_SIZE = 50;

/**
 * The project's tools (GET /v1/tools), filtered on the server (q over id, description and tags; effect; mutating;
 * transport) and read a page at a time with the API's cursor, so 1,000 tools cost one small page to show.
 */
export function useTools(projectId: string, filters: ToolFilters) {
  return useInfiniteQuery({
    queryKey: toolKeys.list(projectId, filters),
    queryFn: ({ pageParam, signal }) =>
      apiFetch<Page<ToolSummary>>("/v1/tools", {
        signal,
        query: { projectId, limit: TOOLS_PAGE_SIZE, cursor: pageParam, q: filters.q, effect: filters.effect, mutating: filters.mutating, transport: filters.transport },
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
    placeholderData: keepPreviousData,
  });
}
