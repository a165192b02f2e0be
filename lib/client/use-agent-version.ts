"use client";
import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import type { AgentVersion } from "@/lib/client/agent-types";
import { agentKeys } from "@/lib/client/query-keys";

/** One version of an agent with its definition exactly as registered (versions never change: cached for good). */
export function useAgentVersion(agentId: string, version: string | null | undefined) {
  return useQuery({
    queryKey: agentKeys.version(agentId, version ?? ""),
    queryFn: ({ signal }) => apiFetch<AgentVersion>(`/v1/agents/${encodeURIComponent(agentId)}/versions/${encodeURIComponent(version ?? "")}`, { signal }),
    enabled: Boolean(version),
    staleTime: Infinity,
  });
}
