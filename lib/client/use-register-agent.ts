"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiFetch, type Issue } from "@/lib/client/api";
import type { AgentDefinition } from "@/lib/client/agent-types";
import { agentKeys } from "@/lib/client/query-keys";

export type RegisteredAgent = { agentId: string; version: string; warnings: Issue[] };

/** Registers a definition as a new version (POST /v1/agents, with an idempotency key per attempt). */
export function useRegisterAgent(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (definition: AgentDefinition) =>
      apiFetch<RegisteredAgent>("/v1/agents", { method: "POST", body: { ...definition, projectId }, idempotencyKey: crypto.randomUUID() }),
    onSuccess: (result) => {
      void client.invalidateQueries({ queryKey: agentKeys.detail(result.agentId) });
      void client.invalidateQueries({ queryKey: ["agents", "list"] });
    },
  });
}
