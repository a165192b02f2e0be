"use client";
import { useQuery } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import { conversationOpenRunKeys } from "@/lib/client/query-keys";
import { isTerminalStatus, type Run } from "@/lib/client/run-types";

/**
 * The runs of a conversation that have not finished (pending, running, or suspended on an approval), oldest first:
 * a conversation opened again in the playground shows them as turns, so a call still waiting can be decided there.
 */
export function useConversationOpenRuns(projectId: string, conversationId: string | null) {
  return useQuery({
    queryKey: conversationOpenRunKeys.list(projectId, conversationId ?? ""),
    queryFn: async ({ signal }) => {
      const page = await apiFetch<Page<Run>>("/v1/runs", { query: { projectId, conversationId: conversationId ?? undefined, limit: 20 }, signal });
      return page.data.filter((run) => !isTerminalStatus(run.status)).reverse();
    },
    enabled: Boolean(projectId && conversationId),
    staleTime: 0,
  });
}
