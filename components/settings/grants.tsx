"use client";

/** `/settings/grants`: the project's remembered approvals (grants): what they let through, who made them and from which approval; revoke one. */
import Link from "next/link";
import { useState } from "react";
import { Badge, Button, Dialog, DialogContent, DialogFooter, EmptyState, ErrorBanner, PageHeader, SkeletonRows, Spinner } from "@/components/ui";
import { formatTime, shortId } from "@/components/runs/run-bits";
import { useCurrentProject } from "@/lib/client/current-project";
import { grantConditionInWords } from "@/lib/client/grant-condition-words";
import { useApprovalGrants, useRevokeGrant, type ApprovalGrant } from "@/lib/client/use-approval-grants";
import { useIdentity } from "@/lib/client/use-identity";
import { SettingsTable, td } from "./settings-nav";
import { roleNote, useUserName } from "./trigger-bits";

export function GrantsPage() {
  const { projectId, projects } = useCurrentProject();
  const identity = useIdentity();
  const [showRevoked, setShowRevoked] = useState(false);
  const grants = useApprovalGrants(projectId, { revoked: showRevoked });
  const userName = useUserName();
  const canWrite = Boolean(identity.data) && identity.data?.user.role !== "viewer";
  const note = roleNote(identity.data?.user.role, "grants");
  const projectName = (id: string) => projects.find((p) => p.id === id)?.name ?? shortId(id);
  const rows = grants.data ?? [];
  return (
    <div>
      <PageHeader
        title="Approval grants"
        description="A grant lets later calls of one tool by one agent in this project run without asking — every call, or only those whose arguments match its condition. Unattended runs still ask for tools that need a person when unattended. Revoke a grant and the next call asks again."
      />
      {note ? <p className="mb-3 rounded-md border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800">{note}</p> : null}
      <div className="mb-3 flex items-center gap-2">
        <input id="grants-revoked" type="checkbox" className="h-4 w-4 rounded border-zinc-300 accent-indigo-600" checked={showRevoked} onChange={(e) => setShowRevoked(e.target.checked)} />
        <label htmlFor="grants-revoked" className="text-sm">
          Show revoked grants instead
        </label>
      </div>
      <ErrorBanner error={grants.error} title="Cannot list the grants" />
      {grants.isPending ? <SkeletonRows rows={3} label="Loading the grants" /> : null}
      {grants.data && rows.length === 0 ? (
        showRevoked ? (
          <EmptyState title="No revoked grants">Grants you revoke are listed here.</EmptyState>
        ) : (
          <EmptyState title="No grants yet" action={<Button variant="primary" asChild><Link href="/approvals">Open Approvals</Link></Button>}>
            Grants come from “Approve and remember” in Approvals: approving a call and remembering it lets that agent call that tool again without asking.
          </EmptyState>
        )
      ) : null}
      {rows.length ? (
        <SettingsTable caption={showRevoked ? "Revoked approval grants" : "Approval grants"} head={["Agent · tool", "Project", "Lets through", "Created", showRevoked ? "Revoked" : ""]}>
          {rows.map((grant) => (
            <GrantRow key={grant.id} grant={grant} projectName={projectName(grant.projectId)} userName={userName} canWrite={canWrite} />
          ))}
        </SettingsTable>
      ) : null}
    </div>
  );
}

function GrantRow({ grant, projectName, userName, canWrite }: { grant: ApprovalGrant; projectName: string; userName(id: string | null): string; canWrite: boolean }) {
  const revoke = useRevokeGrant();
  const [confirm, setConfirm] = useState(false);
  const condition = grantConditionInWords(grant.condition);
  const label = `${grant.agentId} → ${grant.toolId}`;
  return (
    <tr data-grant-id={grant.id}>
      <td className={`${td} break-all`}>
        <Link href={`/agents/${encodeURIComponent(grant.agentId)}`} className="inline-block py-1 font-mono text-indigo-700 hover:underline dark:text-indigo-300">
          {grant.agentId}
        </Link>
        <div className="font-mono text-xs text-zinc-700 dark:text-zinc-300">
          calls <Link href={`/tools/${encodeURIComponent(grant.toolId)}`} className="inline-block py-1 text-indigo-700 hover:underline dark:text-indigo-300">{grant.toolId}</Link>
        </div>
      </td>
      <td className={td}>{projectName}</td>
      <td className={td}>
        {grant.condition === null ? <Badge tone="warning">every call</Badge> : <span>{condition.words}</span>}
        {grant.condition !== null ? (
          <details className="mt-1 text-xs">
            <summary className="cursor-pointer text-indigo-700 dark:text-indigo-300">The condition as JSON Schema</summary>
            <pre tabIndex={0} className="mt-1 max-w-md overflow-x-auto rounded bg-zinc-50 p-2 font-mono dark:bg-zinc-900">{JSON.stringify(grant.condition, null, 2)}</pre>
          </details>
        ) : null}
      </td>
      <td className={`${td} text-xs`}>
        {userName(grant.createdBy)}
        <div className="text-zinc-600 dark:text-zinc-400">{formatTime(grant.createdAt)}</div>
        {grant.approvalId ? (
          <Link href={`/approvals/${grant.approvalId}`} className="inline-block py-1 text-indigo-700 hover:underline dark:text-indigo-300" title={`The approval ${grant.approvalId} this grant came from`}>
            from approval {shortId(grant.approvalId)}
          </Link>
        ) : null}
      </td>
      <td className={`${td} text-right`}>
        {grant.revokedAt ? (
          <span className="text-xs">
            <Badge tone="danger">revoked</Badge>
            <div className="mt-1 text-zinc-600 dark:text-zinc-400">
              {formatTime(grant.revokedAt)} by {userName(grant.revokedBy)}
            </div>
          </span>
        ) : (
          <Dialog open={confirm} onOpenChange={(next) => { setConfirm(next); if (!next) revoke.reset(); }}>
            <Button size="sm" variant="secondary" disabled={!canWrite} title={canWrite ? undefined : "Viewers cannot revoke grants"} onClick={() => setConfirm(true)} aria-label={`Revoke the grant ${label}`}>
              Revoke
            </Button>
            <DialogContent title="Revoke this grant?" description={`The next call of ${grant.toolId} by ${grant.agentId} asks for approval again. This cannot be undone; approving and remembering creates a new grant.`}>
              <ErrorBanner error={revoke.error} title="Cannot revoke the grant" />
              <DialogFooter>
                <Button onClick={() => setConfirm(false)}>Keep it</Button>
                <Button variant="danger" disabled={revoke.isPending} onClick={() => revoke.mutate(grant.id, { onSuccess: () => setConfirm(false) })}>
                  {revoke.isPending ? <Spinner /> : null}
                  Revoke grant
                </Button>
              </DialogFooter>
            </DialogContent>
          </Dialog>
        )}
      </td>
    </tr>
  );
}
