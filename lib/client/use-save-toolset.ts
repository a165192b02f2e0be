"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import { toolsetKeys } from "@/lib/client/query-keys";
import type { Toolset, ToolsetBody } from "@/lib/client/toolset-types";

/** Creates a toolset (POST /v1/toolsets) or, with `id`, replaces its fields (PATCH /v1/toolsets/{id}). */
export function useSaveToolset() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: string; body: ToolsetBody }) =>
      id ? apiFetch<Toolset>(`/v1/toolsets/${encodeURIComponent(id)}`, { method: "PATCH", body }) : apiFetch<Toolset>("/v1/toolsets", { method: "POST", body }),
    onSuccess: () => void client.invalidateQueries({ queryKey: toolsetKeys.all }),
  });
}
