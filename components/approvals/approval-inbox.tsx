"use client";
import { useEffect, useMemo, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/lib/client/api";
import { ApprovalDetail, Expiry, originInWords, type ApprovalActionsHandle } from "@/components/approvals/approval-detail";
import { ApprovalHistory } from "@/components/approvals/approval-history";
import { Button, Dialog, DialogContent, EmptyState, ErrorBanner, Kbd, Label, PageHeader, Select, SkeletonRows, Tabs, TabsContent, TabsList, TabsTrigger, cn } from "@/components/ui";
import { useCurrentProject } from "@/lib/client/current-project";
import { isTypingTarget } from "@/lib/client/use-keyboard-shortcut";
import { approvalKeys, useApprovalStream, useApprovals, type Approval } from "@/lib/client/use-approvals";
import { useApprovalNotifications, type NotifyState } from "@/lib/client/use-approval-notifications";

const SHORTCUTS: Array<[string, string]> = [
  ["j", "Next approval"],
  ["k", "Previous approval"],
  ["a", "Approve the selected one"],
  ["r", "Reject it (with a reason)"],
  ["e", "Edit its arguments, then approve"],
  ["x", "Select it for a batch decision"],
  ["?", "Show this list"],
];

export function LiveIndicator({ live }: { live: boolean }) {
  return (
    <span data-testid="live-indicator" data-live={live} className="inline-flex items-center gap-1.5 text-sm text-zinc-700 dark:text-zinc-300" role="status">
      <span aria-hidden className={cn("h-2 w-2 rounded-full", live ? "bg-emerald-500" : "bg-zinc-400")} />
      {live ? "live" : "reconnecting…"}
    </span>
  );
}

/** The opt-in to browser notifications: asks the browser's permission only when clicked. */
export function NotifyToggle({ state, onEnable, onDisable }: { state: NotifyState; onEnable(): void; onDisable(): void }) {
  if (state === "unsupported") return null;
  if (state === "denied") {
    return (
      <span className="text-sm text-zinc-700 dark:text-zinc-300" data-testid="notify-state">
        Notifications are blocked for this site in the browser
      </span>
    );
  }
  const on = state === "on";
  return (
    <Button size="sm" variant="ghost" aria-pressed={on} onClick={on ? onDisable : onEnable} title={on ? "A notification shows for each new approval while this tab is in the background" : undefined}>
      <span aria-hidden className={cn("h-2 w-2 rounded-full", on ? "bg-indigo-600" : "border border-zinc-500")} />
      Notify me of new approvals
      {on ? <span className="rounded bg-indigo-50 px-1 text-xs text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200">on</span> : null}
    </Button>
  );
}

/** /approvals: pending calls oldest first on the left, the selected one on the right; live through the stream. */
export function ApprovalInbox() {
  const { projectId } = useCurrentProject();
  const approvals = useApprovals(projectId, "pending");
  const notifications = useApprovalNotifications();
  const { live, lastDecided } = useApprovalStream((event) => {
    if (event.approval.projectId === projectId) notifications.notify(event);
  });
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [help, setHelp] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const actions = useRef<ApprovalActionsHandle>(null);
  const [tab, setTab] = useState("pending");
  const client = useQueryClient();
  const [checked, setChecked] = useState<Set<string>>(new Set());
  const [batch, setBatch] = useState<{ busy: boolean; error: unknown; rejecting: boolean; reason: string }>({ busy: false, error: null, rejecting: false, reason: "" });
  const toggle = (id: string) => setChecked((current) => { const next = new Set(current); if (next.has(id)) next.delete(id); else next.add(id); return next; });
  const [filters, setFilters] = useState({ agent: "", tool: "", run: "" });
  const all = useMemo(() => approvals.data?.data ?? [], [approvals.data]);
  const items = useMemo(() => all.filter((item) => (!filters.agent || item.agent?.id === filters.agent) && (!filters.tool || item.tool?.id === filters.tool) && (!filters.run || item.runId === filters.run)), [all, filters]);
  const options = (pick: (item: Approval) => string | undefined) => [...new Set(all.map(pick).filter((value): value is string => Boolean(value)))].sort();
  const selected = items.find((item) => item.id === selectedId) ?? items[0] ?? null;
  const index = selected ? items.indexOf(selected) : -1;

  useEffect(() => {
    document.title = all.length ? `(${all.length}) Approvals · Kindgi Console` : "Approvals · Kindgi Console";
  }, [all.length]);

  useEffect(() => {
    if (lastDecided && lastDecided.id === selectedId && !items.some((item) => item.id === lastDecided.id)) setNote(`An approval was ${lastDecided.status} elsewhere.`);
  }, [lastDecided, selectedId, items]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (tab !== "pending" || event.ctrlKey || event.metaKey || event.altKey || isTypingTarget(event.target)) return;
      if (document.querySelector("[role=dialog]") && event.key !== "?") return;
      const move = (delta: number) => {
        if (!items.length) return;
        const next = items[Math.min(items.length - 1, Math.max(0, index + delta))];
        setSelectedId(next.id);
        document.getElementById(`approval-row-${next.id}`)?.focus();
      };
      if (event.key === "j") move(1);
      else if (event.key === "k") move(-1);
      else if (event.key === "a") actions.current?.approve();
      else if (event.key === "r") actions.current?.reject();
      else if (event.key === "e") actions.current?.edit();
      else if (event.key === "x" && selected) toggle(selected.id);
      else if (event.key === "?") setHelp(true);
      else return;
      event.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [items, index, tab, selected]);

  const chosen = items.filter((item) => checked.has(item.id));
  const decideAll = async (body: { decision: "approve" | "reject"; rationale?: string }) => {
    setBatch((current) => ({ ...current, busy: true, error: null }));
    try {
      for (const item of chosen) await apiFetch(`/v1/approvals/${item.id}/complete`, { body });
      setChecked(new Set());
      setNote(`${chosen.length} approvals ${body.decision === "approve" ? "approved" : "rejected"}.`);
      setBatch({ busy: false, error: null, rejecting: false, reason: "" });
    } catch (error) {
      setBatch((current) => ({ ...current, busy: false, error }));
    } finally {
      void client.invalidateQueries({ queryKey: approvalKeys.all });
    }
  };

  const onDecided = (decided: Approval) => {
    setNote(`${decided.tool?.id ?? "The call"} was ${decided.status}.`);
    const next = items[index + 1] ?? items[index - 1] ?? null;
    setSelectedId(next && next.id !== decided.id ? next.id : null);
  };

  return (
    <div>
      <PageHeader
        title={
          <span>
            Approvals{" "}
            {all.length ? (
              <span data-testid="approval-count" className="ml-1 rounded-full bg-indigo-600 px-2 py-0.5 align-middle text-sm text-white">
                {all.length}
              </span>
            ) : null}
          </span>
        }
        description="Tool calls waiting for a person, oldest first."
        actions={
          <div className="flex items-center gap-3">
            <LiveIndicator live={live} />
            <NotifyToggle state={notifications.state} onEnable={() => void notifications.enable()} onDisable={notifications.disable} />
            <Button size="sm" variant="ghost" onClick={() => setHelp(true)}>
              Shortcuts <Kbd>?</Kbd>
            </Button>
          </div>
        }
      />
      <Tabs value={tab} onValueChange={setTab}>
        <TabsList aria-label="Approvals">
          <TabsTrigger value="pending">Pending</TabsTrigger>
          <TabsTrigger value="history">History</TabsTrigger>
        </TabsList>
        <TabsContent value="history">{tab === "history" ? <ApprovalHistory projectId={projectId} /> : null}</TabsContent>
        <TabsContent value="pending">
      {all.length ? (
        <div className="mb-3 flex flex-wrap gap-3" role="group" aria-label="Filters">
          {([["agent", "Agent", (item: Approval) => item.agent?.id], ["tool", "Tool", (item: Approval) => item.tool?.id], ["run", "Run", (item: Approval) => item.runId]] as const).map(([key, label, pick]) => (
            <div key={key}>
              <Label htmlFor={`approvals-filter-${key}`}>{label}</Label>
              <Select id={`approvals-filter-${key}`} className="mt-1" value={filters[key]} onChange={(event) => setFilters((current) => ({ ...current, [key]: event.target.value }))}>
                <option value="">{`Any ${label.toLowerCase()}`}</option>
                {options(pick).map((value) => (
                  <option key={value} value={value}>
                    {key === "run" ? value.slice(0, 8) : value}
                  </option>
                ))}
              </Select>
            </div>
          ))}
        </div>
      ) : null}
      {chosen.length ? (
        <div className="mb-3 flex flex-wrap items-center gap-2 rounded border border-indigo-200 bg-indigo-50 px-3 py-2 text-sm dark:border-indigo-800 dark:bg-indigo-950" role="group" aria-label="Batch decision">
          <span>{chosen.length} selected</span>
          <Button size="sm" variant="primary" disabled={batch.busy} onClick={() => void decideAll({ decision: "approve" })}>
            Approve {chosen.length}
          </Button>
          <Button size="sm" variant="danger" disabled={batch.busy} onClick={() => setBatch((current) => ({ ...current, rejecting: true, reason: "" }))}>
            Reject {chosen.length}…
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setChecked(new Set())}>Clear</Button>
        </div>
      ) : null}
      {batch.error ? <ErrorBanner className="mb-3" error={batch.error} title="Some decisions were not recorded" /> : null}
      {note ? (
        <p role="status" className="mb-3 text-sm text-zinc-700 dark:text-zinc-300" data-testid="inbox-note">
          {note}
        </p>
      ) : null}
      {approvals.isPending ? <SkeletonRows rows={4} label="Loading the approvals" /> : null}
      {approvals.isError ? <ErrorBanner error={approvals.error} title="Cannot load the approvals" action={<Button size="sm" onClick={() => approvals.refetch()}>Retry</Button>} /> : null}
      {approvals.isSuccess && all.length > 0 && items.length === 0 ? <EmptyState title="No pending approval matches these filters" /> : null}
      {approvals.isSuccess && all.length === 0 ? (
        <EmptyState title="Nothing waits for a decision">A mutating tool&apos;s call with no grant stops here; new ones appear while this page is open.</EmptyState>
      ) : null}
      {items.length ? (
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-[22rem_1fr]">
          <ul aria-label="Pending approvals" className="divide-y divide-zinc-200 rounded border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
            {items.map((item) => (
              <li key={item.id} className="flex items-start">
                <input
                  type="checkbox"
                  aria-label={`Select ${item.tool?.id ?? "approval"} of run ${item.runId.slice(0, 8)}`}
                  className="mt-2 ml-3 h-6 w-6 shrink-0"
                  checked={checked.has(item.id)}
                  onChange={() => toggle(item.id)}
                />
                <button
                  type="button"
                  id={`approval-row-${item.id}`}
                  data-testid="approval-row"
                  data-approval-id={item.id}
                  aria-current={item.id === selected?.id ? "true" : undefined}
                  onClick={() => setSelectedId(item.id)}
                  className={cn("block w-full min-w-0 px-3 py-2 text-left text-sm focus-visible:outline-2 focus-visible:outline-indigo-600", item.id === selected?.id ? "bg-indigo-50 dark:bg-indigo-950" : "hover:bg-zinc-50 dark:hover:bg-zinc-900")}
                >
                  <span className="block truncate font-medium">{item.kind === "session" ? "Next turn" : item.tool?.id}</span>
                  <span className="block truncate text-zinc-700 dark:text-zinc-300">
                    {item.agent?.id ?? "—"} · {originInWords(item.origin)}
                  </span>
                  <span className="block text-xs text-zinc-600 dark:text-zinc-400">
                    asked {new Date(item.requestedAt).toLocaleTimeString()} · <Expiry iso={item.expiresAt} />
                  </span>
                </button>
              </li>
            ))}
          </ul>
          <section aria-label="Selected approval" className="rounded border border-zinc-200 p-4 dark:border-zinc-800">
            {selected ? <ApprovalDetail key={selected.id} ref={actions} approval={selected} onDecided={onDecided} /> : null}
          </section>
        </div>
      ) : null}
        </TabsContent>
      </Tabs>
      <Dialog open={batch.rejecting} onOpenChange={(open) => !open && setBatch((current) => ({ ...current, rejecting: false }))}>
        <DialogContent title={`Reject ${chosen.length} calls`} description="Each model is told its call was rejected, with this reason.">
          <form
            onSubmit={(event) => {
              event.preventDefault();
              if (batch.reason.trim()) void decideAll({ decision: "reject", rationale: batch.reason.trim() });
            }}
          >
            <Label htmlFor="batch-reason">Reason (required)</Label>
            <textarea id="batch-reason" required rows={3} value={batch.reason} onChange={(event) => setBatch((current) => ({ ...current, reason: event.target.value }))} className="mt-1 w-full rounded border border-zinc-300 p-2 text-sm dark:border-zinc-700 dark:bg-zinc-900" />
            <div className="mt-4 flex justify-end gap-2">
              <Button type="button" onClick={() => setBatch((current) => ({ ...current, rejecting: false }))}>Cancel</Button>
              <Button type="submit" variant="danger" disabled={!batch.reason.trim() || batch.busy}>Reject all</Button>
            </div>
          </form>
        </DialogContent>
      </Dialog>
      <Dialog open={help} onOpenChange={setHelp}>
        <DialogContent title="Keyboard shortcuts">
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            {SHORTCUTS.map(([key, label]) => (
              <div key={key} className="contents">
                <dt>
                  <Kbd>{key}</Kbd>
                </dt>
                <dd>{label}</dd>
              </div>
            ))}
          </dl>
        </DialogContent>
      </Dialog>
    </div>
  );
}
