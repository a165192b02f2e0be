"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import type { AgentDetail, ApprovalExpiryChoice } from "@/lib/client/agent-types";
import { agentKeys } from "@/lib/client/query-keys";

/** Changes an agent's settings outside its versions (PATCH /v1/agents/{agentId}); the answer is the agent. */
export function useUpdateAgentSettings(agentId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (settings: { onApprovalExpired: ApprovalExpiryChoice | null }) =>
      apiFetch<AgentDetail>(`/v1/agents/${encodeURIComponent(agentId)}`, { method: "PATCH", body: settings, idempotencyKey: crypto.randomUUID() }),
    onSuccess: (agent) => client.setQueryData(agentKeys.detail(agentId), agent),
  });
}
