"use client";
import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import { toolKeys } from "@/lib/client/query-keys";
import type { ToolDetail } from "@/lib/client/tool-types";

/** A tool with its latest active version and the list of its versions (GET /v1/tools/{toolId}). */
export function useTool(toolId: string) {
  return useQuery({ queryKey: toolKeys.detail(toolId), queryFn: ({ signal }) => apiFetch<ToolDetail>(`/v1/tools/${encodeURIComponent(toolId)}`, { signal }) });
}
