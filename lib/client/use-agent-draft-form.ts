"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import type { AgentDefinition, ParameterForm } from "@/lib/client/agent-types";
import { agentKeys } from "@/lib/client/query-keys";

/** The parameter form an unsaved definition's parameters generate (POST /v1/agents/form), as its users will see it. */
export function useAgentDraftForm(parameters: NonNullable<AgentDefinition["parameters"]>) {
  return useQuery({
    queryKey: agentKeys.form(parameters),
    queryFn: ({ signal }) => apiFetch<ParameterForm>("/v1/agents/form", { method: "POST", body: { definition: { parameters } }, signal }),
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 60_000,
  });
}
