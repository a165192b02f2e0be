"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch, type Page } from "@/lib/client/api";
import { automationKeys } from "@/lib/client/query-keys";

/** A remembered approval (GET /v1/approval-grants). */
export type ApprovalGrant = {
  id: string;
  projectId: string;
  agentId: string;
  toolId: string;
  condition: unknown;
  approvalId: string | null;
  createdBy: string;
  createdAt: string;
  revokedAt: string | null;
  revokedBy: string | null;
};

/** The project's grants, newest first (every page: grants are few); `revoked` chooses live or revoked ones. */
export function useApprovalGrants(projectId: string, filters: { revoked?: boolean } = {}) {
  return useQuery({
    queryKey: automationKeys.grants(projectId, filters),
    queryFn: async ({ signal }) => {
      const items: ApprovalGrant[] = [];
      let cursor: string | undefined;
      do {
        const page = await apiFetch<Page<ApprovalGrant>>("/v1/approval-grants", { query: { projectId, revoked: filters.revoked, limit: 100, cursor }, signal });
        items.push(...page.data);
        cursor = page.hasMore ? page.nextCursor : undefined;
      } while (cursor && items.length < 2000);
      return items;
    },
    enabled: Boolean(projectId),
  });
}

/** POST /v1/approval-grants/{id}/revoke: later calls ask again. */
export function useRevokeGrant() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (grantId: string) => apiFetch<ApprovalGrant>(`/v1/approval-grants/${grantId}/revoke`, { method: "POST", body: {} }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["automation", "grants"] }),
  });
}
