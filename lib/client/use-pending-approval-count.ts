"use client";
import { useProjectState } from "@/lib/client/current-project";
import { useApprovalStream, useApprovals } from "@/lib/client/use-approvals";

/**
 * How many approvals wait in the current project, for the navigation's badge: the inbox's own query (one page of 100:
 * "100+" beyond), kept live by the approval stream. null while unknown or when none waits.
 */
export function usePendingApprovalCount(): { count: number; label: string } | null {
  const state = useProjectState();
  const projectId = state.status === "ready" ? state.projectId : "";
  const approvals = useApprovals(projectId, "pending");
  useApprovalStream();
  const page = approvals.data;
  if (!projectId || !page || page.data.length === 0) return null;
  return { count: page.data.length, label: page.hasMore ? `${page.data.length}+` : String(page.data.length) };
}
