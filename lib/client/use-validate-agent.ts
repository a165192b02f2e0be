"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import type { AgentDryRun } from "@/lib/client/agent-types";
import { agentKeys } from "@/lib/client/query-keys";

/**
 * The dry run of a definition being edited (POST /v1/agents/validate): every problem and warning at its JSON
 * pointer, what each tool range resolves to now, and the routing. Pass the debounced draft; the previous
 * verdict stays shown while the next one loads.
 */
export function useValidateAgent(projectId: string, draft: Record<string, unknown>) {
  return useQuery({
    queryKey: agentKeys.validation(projectId, draft),
    queryFn: ({ signal }) => apiFetch<AgentDryRun>("/v1/agents/validate", { method: "POST", body: { ...draft, projectId }, signal }),
    enabled: Boolean(projectId),
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 5_000,
  });
}
