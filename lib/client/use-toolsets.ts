"use client";
import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import { toolsetKeys } from "@/lib/client/query-keys";
import type { Toolset } from "@/lib/client/toolset-types";

type ToolsetPage = { data: Toolset[]; hasMore?: boolean; nextCursor?: string | null };

/** Every toolset of the project (every page of GET /v1/toolsets; a project has a handful). */
export function useToolsets(projectId: string) {
  return useQuery({
    queryKey: toolsetKeys.list(projectId),
    queryFn: async ({ signal }) => {
      const toolsets: Toolset[] = [];
      let cursor: string | undefined;
      do {
        const page = await apiFetch<ToolsetPage>("/v1/toolsets", { query: { projectId, limit: 100, cursor }, signal });
        toolsets.push(...page.data);
        cursor = page.hasMore !== false && page.nextCursor ? page.nextCursor : undefined;
      } while (cursor && toolsets.length < 1000);
      return toolsets;
    },
    enabled: Boolean(projectId),
  });
}
