"use client";
import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import type { AgentDetail } from "@/lib/client/agent-types";
import { agentKeys } from "@/lib/client/query-keys";

/** One agent: its latest active version (with the definition) and the list of its versions. */
export function useAgent(agentId: string) {
  return useQuery({
    queryKey: agentKeys.detail(agentId),
    queryFn: ({ signal }) => apiFetch<AgentDetail>(`/v1/agents/${encodeURIComponent(agentId)}`, { signal }),
    enabled: Boolean(agentId),
  });
}
