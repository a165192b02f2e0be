"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import { runApprovalKeys } from "@/lib/client/query-keys";
import type { Approval } from "@/lib/client/use-approvals";

/**
 * A run's approvals, every status, oldest first (GET /v1/approvals?runId=…). `version` is anything that changes when
 * the run's journal says an approval was requested or decided (the run's stream drives it): the list is then read
 * again, so a decision made elsewhere shows at once.
 */
export function useRunApprovals(runId: string, version: number) {
  return useQuery({
    queryKey: [...runApprovalKeys.list(runId), version] as const,
    queryFn: ({ signal }) => apiFetch<Page<Approval>>("/v1/approvals", { query: { runId, limit: 100 }, signal }),
    placeholderData: keepPreviousData,
    enabled: Boolean(runId),
  });
}
