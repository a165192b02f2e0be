"use client";

/**
 * Version history and the difference between two versions: the definitions pretty-printed as JSON and
 * compared line by line (jsdiff), shown as a unified view with old and new line numbers.
 */
import { useMemo, useState } from "react";
import { diffLines } from "diff";
import type { AgentVersionSummary } from "@/lib/client/agent-types";
import { prettyDefinition } from "@/lib/client/agent-draft";
import { useAgentVersion } from "@/lib/client/use-agent-version";
import { inputClass } from "./fields";

type Row = { kind: "added" | "removed" | "same"; text: string; oldLine: number | null; newLine: number | null };

/** The unified rows of a line diff between two texts. */
export function diffRows(before: string, after: string): Row[] {
  const rows: Row[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const change of diffLines(before, after)) {
    const lines = change.value.replace(/\n$/, "").split("\n");
    for (const text of lines) {
      if (change.added) rows.push({ kind: "added", text, oldLine: null, newLine: newLine++ });
      else if (change.removed) rows.push({ kind: "removed", text, oldLine: oldLine++, newLine: null });
      else rows.push({ kind: "same", text, oldLine: oldLine++, newLine: newLine++ });
    }
  }
  return rows;
}

export function VersionHistory({ agentId, versions, onOpen }: { agentId: string; versions: AgentVersionSummary[]; onOpen(version: string): void }) {
  const [from, setFrom] = useState(versions[1]?.version ?? versions[0]?.version ?? "");
  const [to, setTo] = useState(versions[0]?.version ?? "");
  return (
    <div className="space-y-4">
      <section aria-labelledby="history-title" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-950">
        <h2 id="history-title" className="mb-2 text-sm font-semibold">
          Version history
        </h2>
        <table className="w-full text-sm">
          <thead>
            <tr className="text-left text-xs text-zinc-600 dark:text-zinc-400">
              <th scope="col" className="py-1 font-medium">Version</th>
              <th scope="col" className="py-1 font-medium">Status</th>
              <th scope="col" className="py-1 font-medium">Registered</th>
              <th scope="col" className="py-1 font-medium"><span className="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => (
              <tr key={v.version} className="border-t border-zinc-100 dark:border-zinc-800">
                <td className="py-1.5 font-mono">
                  {v.version}
                  {v.isLatest ? <span className="ml-2 rounded bg-indigo-50 px-1.5 py-0.5 text-xs text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200">latest</span> : null}
                </td>
                <td className="py-1.5">{v.status}</td>
                <td className="py-1.5 text-zinc-600 dark:text-zinc-400">
                  <time dateTime={v.registeredAt}>{new Date(v.registeredAt).toLocaleString()}</time>
                </td>
                <td className="py-1.5 text-right">
                  <button type="button" className="inline-flex min-h-6 items-center rounded px-1 text-xs font-medium text-indigo-700 hover:underline dark:text-indigo-300" onClick={() => onOpen(v.version)}>
                    Edit from this version<span className="sr-only"> ({v.version})</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="diff-title" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-950">
        <h2 id="diff-title" className="mb-2 text-sm font-semibold">
          Compare versions
        </h2>
        <div className="mb-3 flex items-end gap-3">
          <VersionSelect id="diff-from" label="From" value={from} onChange={setFrom} versions={versions} />
          <VersionSelect id="diff-to" label="To" value={to} onChange={setTo} versions={versions} />
        </div>
        <VersionDiff agentId={agentId} from={from} to={to} />
      </section>
    </div>
  );
}

function VersionSelect({ id, label, value, onChange, versions }: { id: string; label: string; value: string; onChange(v: string): void; versions: AgentVersionSummary[] }) {
  return (
    <div className="w-40 space-y-1">
      <label htmlFor={id} className="block text-xs font-medium">
        {label}
      </label>
      <select id={id} className={inputClass} value={value} onChange={(e) => onChange(e.target.value)}>
        {versions.map((v) => (
          <option key={v.version} value={v.version}>
            {v.version}
          </option>
        ))}
      </select>
    </div>
  );
}

export function VersionDiff({ agentId, from, to }: { agentId: string; from: string; to: string }) {
  const before = useAgentVersion(agentId, from);
  const after = useAgentVersion(agentId, to);
  const rows = useMemo(
    () => (before.data && after.data ? diffRows(prettyDefinition(before.data.definition), prettyDefinition(after.data.definition)) : null),
    [before.data, after.data],
  );
  if (before.error || after.error) return <p className="text-sm text-red-700 dark:text-red-400">Cannot load a version: {((before.error ?? after.error) as Error).message}</p>;
  if (!rows) return <div className="h-32 animate-pulse rounded bg-zinc-100 dark:bg-zinc-900" role="status" aria-label="Loading the versions" />;
  const added = rows.filter((r) => r.kind === "added").length;
  const removed = rows.filter((r) => r.kind === "removed").length;
  return (
    <div>
      <p className="mb-2 text-xs text-zinc-600 dark:text-zinc-400" aria-live="polite">
        {from === to ? "The same version on both sides." : `${added} line${added === 1 ? "" : "s"} added, ${removed} removed, from ${from} to ${to}.`}
      </p>
      <div tabIndex={0} role="region" aria-label={`Diff from ${from} to ${to}`} className="max-h-[32rem] overflow-auto rounded-md border border-zinc-200 dark:border-zinc-800">
        <table aria-label={`Differences from ${from} to ${to}`} className="w-full border-collapse font-mono text-xs">
          <thead className="sr-only">
            <tr>
              <th scope="col">Line in {from}</th>
              <th scope="col">Line in {to}</th>
              <th scope="col">Change</th>
              <th scope="col">Text</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr
                key={i}
                className={row.kind === "added" ? "bg-green-50 text-green-950 dark:bg-green-950 dark:text-green-100" : row.kind === "removed" ? "bg-red-50 text-red-950 dark:bg-red-950 dark:text-red-100" : "text-zinc-800 dark:text-zinc-200"}
              >
                <td className="w-10 select-none px-2 text-right text-zinc-500">{row.oldLine ?? ""}</td>
                <td className="w-10 select-none px-2 text-right text-zinc-500">{row.newLine ?? ""}</td>
                <td className="w-6 select-none px-1 text-center">
                  <span aria-hidden="true">{row.kind === "added" ? "+" : row.kind === "removed" ? "−" : ""}</span>
                  <span className="sr-only">{row.kind === "same" ? "unchanged" : row.kind}</span>
                </td>
                <td className="whitespace-pre-wrap break-all px-2 py-0.5">{row.text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
