"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import { toolsetKeys } from "@/lib/client/query-keys";

/** Deletes a toolset (DELETE /v1/toolsets/{id}, 204): its MCP endpoint stops answering. */
export function useDeleteToolset() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch<void>(`/v1/toolsets/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => void client.invalidateQueries({ queryKey: toolsetKeys.all }),
  });
}
