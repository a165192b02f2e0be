"use client";
import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import { toolKeys } from "@/lib/client/query-keys";
import type { ToolVersion } from "@/lib/client/tool-types";

/** One version of a tool with its manifest exactly as registered (GET /v1/tools/{toolId}/versions/{version}). */
export function useToolVersion(toolId: string, version: string | null | undefined) {
  return useQuery({
    queryKey: toolKeys.version(toolId, version ?? ""),
    queryFn: ({ signal }) => apiFetch<ToolVersion>(`/v1/tools/${encodeURIComponent(toolId)}/versions/${encodeURIComponent(version!)}`, { signal }),
    enabled: Boolean(version),
  });
}
