"use client";
import { useQuery } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import { projectKeys } from "@/lib/client/query-keys";
import type { Project } from "@/lib/client/types";

/** Every project the signed-in person can use (all pages of GET /v1/projects), oldest first. */
export function useProjects() {
  return useQuery({
    queryKey: projectKeys.list(),
    queryFn: async ({ signal }) => {
      const projects: Project[] = [];
      let cursor: string | undefined;
      do {
        const page = await apiFetch<Page<Project>>("/v1/projects", { query: { limit: 100, cursor }, signal });
        projects.push(...page.data);
        cursor = page.hasMore ? page.nextCursor : undefined;
      } while (cursor);
      return projects;
    },
    staleTime: 60_000,
  });
}
