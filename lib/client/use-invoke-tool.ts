"use client";
import { useMutation } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import type { ToolRun } from "@/lib/client/tool-types";

/**
 * Calls one tool version directly (POST /v1/tools/{toolId}/versions/{version}/invoke). The call is recorded as a
 * run and goes through the same rules as an agent's call (approvals, budgets, journal); the answer is the run,
 * settled when it could be, with the tool's result in `output`. Invalid arguments are a 400 `validation-failed`
 * whose issues point into `/arguments`.
 */
export function useInvokeTool(toolId: string, version: string) {
  return useMutation({
    mutationFn: ({ projectId, arguments: args }: { projectId?: string; arguments: unknown }) =>
      apiFetch<ToolRun>(`/v1/tools/${encodeURIComponent(toolId)}/versions/${encodeURIComponent(version)}/invoke`, {
        method: "POST",
        body: { ...(projectId ? { projectId } : {}), arguments: args ?? {}, options: { wait: true } },
        idempotencyKey: crypto.randomUUID(),
      }),
  });
}
