"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import { toolKeys } from "@/lib/client/query-keys";
import type { ToolVersion } from "@/lib/client/tool-types";

/** Unregisters (hides from resolution and lists) or reinstates one version of a tool; admins only on the server. */
export function useSetToolVersionStatus(toolId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ version, action }: { version: string; action: "unregister" | "reinstate" }) =>
      apiFetch<ToolVersion>(`/v1/tools/${encodeURIComponent(toolId)}/versions/${encodeURIComponent(version)}/${action}`, { method: "POST", body: {}, idempotencyKey: crypto.randomUUID() }),
    onSuccess: async (updated) => {
      queryClient.setQueryData(toolKeys.version(toolId, updated.version), updated);
      await Promise.all([queryClient.invalidateQueries({ queryKey: toolKeys.detail(toolId) }), queryClient.invalidateQueries({ queryKey: toolKeys.lists() })]);
    },
  });
}
