"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { Badge, Button, EmptyState, ErrorBanner, SkeletonRows } from "@/components/ui";
import { apiFetch, type Page } from "@/lib/client/api";
import { useApprovals } from "@/lib/client/use-approvals";

type Member = { id: string; name: string; email: string };

const SHOWN = 120;

/** The arguments on one line (`name: value, …`), the whole JSON one click away when it is longer. */
function CompactArguments({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="text-zinc-600 dark:text-zinc-400">—</span>;
  const entries = typeof value === "object" && !Array.isArray(value) ? Object.entries(value as Record<string, unknown>) : null;
  const line = entries ? (entries.length ? entries.map(([key, v]) => `${key}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ") : "no arguments") : JSON.stringify(value);
  if (line.length <= SHOWN) return <span className="break-all font-mono text-xs">{line}</span>;
  return (
    <details>
      <summary className="cursor-pointer break-all font-mono text-xs">{line.slice(0, SHOWN)}…</summary>
      <pre className="mt-1 whitespace-pre-wrap break-all font-mono text-xs">{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}

/** Decided approvals, newest decision first: who decided, when, and the rationale. */
export function ApprovalHistory({ projectId }: { projectId: string }) {
  const approvals = useApprovals(projectId, "decided", "newest");
  const members = useQuery({ queryKey: ["members", "list"], queryFn: ({ signal }) => apiFetch<Page<Member>>("/v1/members", { query: { limit: 100 }, signal }), retry: false });
  const nameOf = (id: string | null) => {
    if (!id) return "the system (expiry)";
    const member = members.data?.data.find((m) => m.id === id);
    return member ? member.name || member.email : `user ${id.slice(0, 8)}`;
  };
  const decided = approvals.data?.data ?? [];
  if (approvals.isPending) return <SkeletonRows rows={4} label="Loading decided approvals" />;
  if (approvals.isError) return <ErrorBanner error={approvals.error} title="Cannot load the history" action={<Button size="sm" onClick={() => approvals.refetch()}>Retry</Button>} />;
  if (!decided.length) return <EmptyState title="No decisions yet">Approved, rejected and expired calls are listed here.</EmptyState>;
  return (
    <table className="w-full text-sm" data-testid="approval-history">
      <thead>
        <tr className="text-left text-zinc-600 dark:text-zinc-400">
          <th className="py-1 pr-2 font-medium">Call</th>
          <th className="py-1 pr-2 font-medium">Decision</th>
          <th className="py-1 pr-2 font-medium">Decided by</th>
          <th className="py-1 pr-2 font-medium">When</th>
          <th className="py-1 pr-2 font-medium">Rationale</th>
          <th className="py-1 font-medium">Arguments</th>
        </tr>
      </thead>
      <tbody>
        {decided.map((item) => (
          <tr key={item.id} data-approval-id={item.id} data-decided-at={item.decidedAt ?? ""} className="border-t border-zinc-200 align-top dark:border-zinc-800">
            <td className="py-2 pr-2">
              <Link href={`/approvals/${item.id}`} className="font-medium text-indigo-700 hover:underline dark:text-indigo-300">
                {item.kind === "session" ? "Next turn" : item.tool?.id}
              </Link>
              <div className="text-xs text-zinc-600 dark:text-zinc-400">{item.agent?.id}</div>
            </td>
            <td className="py-2 pr-2">
              <Badge tone={item.status === "approved" ? "success" : item.status === "rejected" ? "danger" : "neutral"}>{item.status}</Badge>
              {item.editedArguments ? <div className="text-xs">edited</div> : null}
              {item.grantId ? <div className="text-xs">remembered</div> : null}
            </td>
            <td className="py-2 pr-2">{nameOf(item.decidedBy)}</td>
            <td className="py-2 pr-2">{item.decidedAt ? new Date(item.decidedAt).toLocaleString() : "—"}</td>
            <td className="py-2 pr-2">{item.rationale ?? "—"}</td>
            <td className="max-w-[24rem] py-2">
              <CompactArguments value={item.kind === "session" ? null : (item.editedArguments ?? item.arguments)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
