"use client";

/** Pieces the automation settings share: who did something, a trigger's state, the agent + version picker, the unattended tools, copy buttons. */
import Link from "next/link";
import { useState } from "react";
import { Badge, Button, ErrorBanner, Input, Label, Select, Skeleton } from "@/components/ui";
import { RunStatusBadge, shortId } from "@/components/runs/run-bits";
import { FieldError } from "@/components/ui/field-error";
import type { Issue } from "@/lib/client/api";
import type { RunStatus } from "@/lib/client/run-types";
import { useAgent } from "@/lib/client/use-agent";
import { useAgentVersion } from "@/lib/client/use-agent-version";
import { useAgents } from "@/lib/client/use-agents";
import { useMembers } from "@/lib/client/use-settings";
import type { RunRef, TriggerStatus } from "@/lib/client/use-schedules";

/** user id → name, from the members list (an id's first characters while it loads or for someone not listed). */
export function useUserName() {
  const members = useMembers();
  return (id: string | null | undefined) => {
    if (!id) return "—";
    const member = members.data?.find((m) => m.id === id);
    return member ? member.name || member.email : `user ${shortId(id)}`;
  };
}

export function TriggerStatusBadge({ status }: { status: TriggerStatus }) {
  if (status === "active") return <Badge tone="success">active</Badge>;
  if (status === "paused") return <Badge tone="warning">paused</Badge>;
  return <Badge tone="neutral">unregistered</Badge>;
}

export function OutcomeBadge({ outcome }: { outcome: "pending" | "started" | "failed" }) {
  if (outcome === "started") return <Badge tone="success">started</Badge>;
  if (outcome === "failed") return <Badge tone="danger">failed</Badge>;
  return <Badge tone="neutral">pending</Badge>;
}

export function RunLink({ run }: { run: RunRef }) {
  if (!run) return <span className="text-zinc-600 dark:text-zinc-400">no run</span>;
  return (
    <span className="inline-flex items-center gap-2">
      <Link href={`/runs/${run.id}`} className="font-mono text-indigo-700 hover:underline dark:text-indigo-300" aria-label={`Run ${run.id}`}>
        {shortId(run.id)}
      </Link>
      <RunStatusBadge status={run.status as RunStatus} />
    </span>
  );
}

/** The issues of the API's answer under `prefix`, re-rooted (e.g. `/input/parameters/x` → `/parameters/x`). */
export function issuesUnder(issues: Issue[], prefix: string, root = ""): Issue[] {
  return issues.filter((issue) => issue.path === prefix || issue.path.startsWith(`${prefix}/`)).map((issue) => ({ ...issue, path: `${root}${issue.path.slice(prefix.length)}` }));
}

/** The current project's agents and one agent's active versions; version "" is "the highest active version at each start". */
export function AgentVersionPicker({ projectId, idPrefix, agentId, version, onChange, issues }: { projectId: string; idPrefix: string; agentId: string; version: string; onChange(next: { agentId: string; version: string }): void; issues: Issue[] }) {
  const agents = useAgents(projectId);
  const agent = useAgent(agentId);
  const list = agents.data?.pages.flatMap((page) => page.data) ?? [];
  const versions = (agent.data?.versions ?? []).filter((v) => v.status === "active");
  const agentInvalid = issues.some((issue) => issue.path === "/agent" || issue.path === "/agent/id");
  return (
    <div className="grid grid-cols-[minmax(0,1fr)_12rem] gap-3">
      <div>
        <Label htmlFor={`${idPrefix}-agent`}>Agent</Label>
        {agents.isPending ? (
          <Skeleton className="mt-1 h-9" />
        ) : (
          <Select id={`${idPrefix}-agent`} className="mt-1" value={agentId} required aria-invalid={agentInvalid || undefined} aria-describedby={agentInvalid ? `${idPrefix}-agent-issues` : undefined} onChange={(e) => onChange({ agentId: e.target.value, version: "" })}>
            <option value="">Choose an agent…</option>
            {list.map((item) => (
              <option key={item.agentId} value={item.agentId}>
                {item.name} ({item.agentId})
              </option>
            ))}
          </Select>
        )}
        <FieldError id={`${idPrefix}-agent-issues`} issues={issues} path="/agent" />
        <FieldError issues={issues} path="/agent/id" />
        <ErrorBanner className="mt-2" error={agents.error} title="Cannot list the agents" />
        {agents.data && list.length === 0 ? <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">This project has no agent yet: define one under Agents first.</p> : null}
      </div>
      <div>
        <Label htmlFor={`${idPrefix}-version`}>Version</Label>
        <Select id={`${idPrefix}-version`} className="mt-1 font-mono" value={version} disabled={!agentId || !agent.data} onChange={(e) => onChange({ agentId, version: e.target.value })}>
          <option value="">latest at each start</option>
          {versions.map((v) => (
            <option key={v.version} value={v.version}>
              {v.version}
            </option>
          ))}
        </Select>
        <FieldError issues={issues} path="/agent/version" />
      </div>
    </div>
  );
}

/** The definition the form's parameters and tools come from: the chosen version, else the latest. */
export function useChosenDefinition(agentId: string, version: string) {
  const agent = useAgent(agentId);
  const exact = useAgentVersion(agentId, version || null);
  const resolvedVersion = version || agent.data?.latestVersion || "";
  const definition = version ? exact.data?.definition : agent.data?.latest?.definition;
  return { resolvedVersion, definition, isPending: Boolean(agentId) && (version ? exact.isPending : agent.isPending) };
}

/** Checkboxes for the agent's tools that this trigger's runs may call unattended (admins only). */
export function UnattendedToolsPicker({ idPrefix, tools, value, onChange, isAdmin, issues }: { idPrefix: string; tools: string[]; value: string[]; onChange(next: string[]): void; isAdmin: boolean; issues: Issue[] }) {
  const hintId = `${idPrefix}-unattended-hint`;
  return (
    <fieldset aria-describedby={hintId}>
      <legend className="text-sm font-medium text-zinc-800 dark:text-zinc-200">Tools allowed unattended</legend>
      <p id={hintId} className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">
        {isAdmin
          ? "Tools these runs may call without a person's approval even when they ask for one in unattended runs. Leave all unchecked to have every such call wait in Approvals."
          : "Only admins choose tools that run without a person's approval; ask an admin to set them. Every such call waits in Approvals."}
      </p>
      {tools.length === 0 ? <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">Choose an agent to list its tools.</p> : null}
      <ul className="mt-1 space-y-1">
        {tools.map((tool) => (
          <li key={tool} className="flex items-center gap-2">
            <input
              id={`${idPrefix}-tool-${tool}`}
              type="checkbox"
              className="h-4 w-4 rounded border-zinc-300 accent-indigo-600"
              disabled={!isAdmin}
              checked={value.includes(tool)}
              onChange={(e) => onChange(e.target.checked ? [...value, tool] : value.filter((t) => t !== tool))}
            />
            <label htmlFor={`${idPrefix}-tool-${tool}`} className="font-mono text-sm">
              {tool}
            </label>
          </li>
        ))}
      </ul>
      <FieldError issues={issues} path="/toolsAllowedUnattended" />
    </fieldset>
  );
}

/** A read-only value with a Copy button (secrets shown once, URLs). */
export function CopyField({ id, label, value, mono = true }: { id: string; label: string; value: string; mono?: boolean }) {
  const [copied, setCopied] = useState(false);
  return (
    <div>
      <Label htmlFor={id}>{label}</Label>
      <div className="mt-1 flex gap-2">
        <Input id={id} readOnly value={value} className={mono ? "font-mono text-xs" : undefined} onFocus={(e) => e.currentTarget.select()} />
        <Button
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(value);
              setCopied(true);
            } catch {
              (document.getElementById(id) as HTMLInputElement | null)?.select();
            }
          }}
        >
          {copied ? "Copied" : "Copy"}
          <span className="sr-only"> {label.toLowerCase()}</span>
        </Button>
      </div>
    </div>
  );
}

/** Who may change automation: writers (not viewers); unattended tools and the audit log need an admin. */
export function roleNote(role: string | undefined, what: string): string | null {
  if (!role) return null;
  if (role === "viewer") return `Viewers read ${what} only; ask a member or an admin to change them.`;
  return null;
}
