"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import { automationKeys } from "@/lib/client/query-keys";

export type AuditEvent = { id: string; action: string; subjectType: string; subjectId: string; projectId: string | null; actorId: string; data: Record<string, unknown> | null; createdAt: string };

export type AuditFilters = { action?: string; subjectType?: string; subjectId?: string; actorId?: string; since?: string; until?: string };

/** GET /v1/audit, newest first, 50 a page ("Load more" fetches the next cursor); tenant admins only. */
export function useAuditLog(filters: AuditFilters, options: { enabled?: boolean } = {}) {
  return useInfiniteQuery({
    queryKey: automationKeys.audit(filters),
    queryFn: ({ pageParam, signal }) => apiFetch<Page<AuditEvent>>("/v1/audit", { query: { ...filters, limit: 50, cursor: pageParam }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
    enabled: options.enabled ?? true,
  });
}
