"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import type { AgentDefinition, RenderedInstructions } from "@/lib/client/agent-types";
import { agentKeys } from "@/lib/client/query-keys";

export type RenderableDraft = Pick<AgentDefinition, "id" | "name" | "version" | "instructions" | "parameters">;

/**
 * The instructions of an unsaved definition rendered with sample parameter values (POST /v1/agents/render).
 * A template problem is an ApiError (validation-failed) whose issues at `/definition/instructions` carry
 * `line` and `column`; missing or mistyped sample values are issues at `/parameters/<name>`.
 */
export function useRenderAgentDraft(draft: RenderableDraft, values: Record<string, unknown>) {
  return useQuery({
    queryKey: agentKeys.render(draft, values),
    queryFn: ({ signal }) => apiFetch<RenderedInstructions>("/v1/agents/render", { method: "POST", body: { definition: draft, parameters: values }, signal }),
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 5_000,
  });
}
