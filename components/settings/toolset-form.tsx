"use client";

/**
 * The toolset dialog: a new toolset, or an existing one's name, description and references edited. Each row names
 * a tool (or agent) of the project — suggested from the catalog as one types — and a semver range; the API's issues
 * show beside the field their path names (`/tools/0/version` under the first tool's range).
 */
import { useState } from "react";
import { Button, Dialog, DialogContent, DialogFooter, ErrorBanner, Field, Input, Spinner, Textarea } from "@/components/ui";
import { FieldError } from "@/components/ui/field-error";
import { useDebounced } from "@/components/agents/use-debounced";
import type { Issue } from "@/lib/client/api";
import { unplacedIssues } from "@/lib/client/issues";
import { defaultRange, draftFromToolset, draftToBody, emptyDraft, newRow, toolsetIssues, type ReferenceKind, type ReferenceRow, type ToolsetDraft } from "@/lib/client/toolset-draft";
import type { Toolset } from "@/lib/client/toolset-types";
import { useSaveToolset } from "@/lib/client/use-save-toolset";
import { useToolsetReferenceOptions } from "@/lib/client/use-toolset-reference-options";

const words = {
  tools: { legend: "Tools", one: "tool", add: "Add a tool", none: "No tools: the toolset serves only its agents.", placeholder: "current-time" },
  agents: { legend: "Agents", one: "agent", add: "Add an agent", none: "No agents. An agent in a toolset is served as a tool that runs it.", placeholder: "support-triage" },
} as const;

/** Mounted while open: `toolset` edits that one, without it a new toolset is made in `projectId`. */
export function ToolsetDialog({ projectId, toolset, onClose, onSaved }: { projectId: string; toolset?: Toolset; onClose(): void; onSaved?(toolset: Toolset): void }) {
  const save = useSaveToolset();
  const [draft, setDraft] = useState<ToolsetDraft>(() => (toolset ? draftFromToolset(toolset) : emptyDraft()));
  const issues = toolsetIssues(save.error);
  const setRows = (kind: ReferenceKind, rows: ReferenceRow[]) => setDraft((current) => ({ ...current, [kind]: rows }));
  const placed = ["/name", "/description", "/tools", "/agents"];
  const others = unplacedIssues(issues, placed);
  return (
    <Dialog open onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent
        className="w-[min(94vw,44rem)]"
        title={toolset ? `Edit “${toolset.name}”` : "New toolset"}
        description="A named selection of this project's tools and agents, each with a version range, served as its own MCP server."
      >
        <form
          className="space-y-4"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const body = draftToBody(draft, toolset ? {} : { projectId });
            save.mutate(
              { id: toolset?.id, body },
              {
                onSuccess: (saved) => {
                  onSaved?.(saved);
                  onClose();
                },
              },
            );
          }}
        >
          <Field id="toolset-name" label="Name" hint="Unique in the project, up to 64 characters: letters, digits, spaces, _ . and -." issues={issues} path="/name">
            {(props) => <Input {...props} value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} autoFocus={!toolset} maxLength={64} />}
          </Field>
          <Field id="toolset-description" label="Description (optional)" hint="What a client gets from it." issues={issues} path="/description">
            {(props) => <Textarea {...props} rows={2} value={draft.description} onChange={(e) => setDraft({ ...draft, description: e.target.value })} />}
          </Field>
          <ReferenceRows kind="tools" projectId={projectId} rows={draft.tools} onChange={(rows) => setRows("tools", rows)} issues={issues} />
          <ReferenceRows kind="agents" projectId={projectId} rows={draft.agents} onChange={(rows) => setRows("agents", rows)} issues={issues} />
          {others.length ? (
            <ul className="list-disc space-y-0.5 pl-5 text-sm text-red-700 dark:text-red-300">
              {others.map((issue, index) => (
                <li key={index}>
                  {issue.path ? <code className="font-mono text-xs">{issue.path}</code> : null} {issue.message}
                </li>
              ))}
            </ul>
          ) : null}
          <ErrorBanner error={save.error} title={toolset ? "Cannot save the toolset" : "Cannot create the toolset"} />
          <DialogFooter>
            <Button onClick={onClose}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={save.isPending}>
              {save.isPending ? <Spinner /> : null}
              {toolset ? "Save changes" : "Create toolset"}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

function ReferenceRows({ kind, projectId, rows, onChange, issues }: { kind: ReferenceKind; projectId: string; rows: ReferenceRow[]; onChange(rows: ReferenceRow[]): void; issues: readonly Issue[] }) {
  const text = words[kind];
  const update = (index: number, patch: Partial<ReferenceRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  return (
    <fieldset>
      <legend className="text-sm font-medium text-zinc-800 dark:text-zinc-200">{text.legend}</legend>
      {rows.length === 0 ? <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{text.none}</p> : null}
      {rows.length ? (
        <div className="mt-1 grid grid-cols-[minmax(0,1fr)_12rem_auto] gap-x-2 text-xs text-zinc-600 dark:text-zinc-400" aria-hidden="true">
          <span>{kind === "tools" ? "Tool id" : "Agent id"}</span>
          <span>Version range</span>
          <span className="w-16" />
        </div>
      ) : null}
      <ul className="mt-1 space-y-2">
        {rows.map((row, index) => (
          <ReferenceRowFields
            key={row.key}
            kind={kind}
            index={index}
            projectId={projectId}
            row={row}
            issues={issues}
            onChange={(patch) => update(index, patch)}
            onRemove={() => onChange(rows.filter((_, i) => i !== index))}
          />
        ))}
      </ul>
      <FieldError issues={issues} path={`/${kind}`} />
      <Button size="sm" variant="ghost" className="mt-2 text-indigo-700 dark:text-indigo-300" onClick={() => onChange([...rows, newRow()])}>
        + {text.add}
      </Button>
    </fieldset>
  );
}

function ReferenceRowFields({ kind, index, projectId, row, issues, onChange, onRemove }: { kind: ReferenceKind; index: number; projectId: string; row: ReferenceRow; issues: readonly Issue[]; onChange(patch: Partial<ReferenceRow>): void; onRemove(): void }) {
  const text = words[kind];
  const q = useDebounced(row.id, 200);
  const options = useToolsetReferenceOptions(projectId, kind, q);
  const base = `/${kind}/${index}`;
  const idPrefix = `toolset-${kind}-${row.key}`;
  const idIssues = issues.some((issue) => issue.path === `${base}/id` || issue.path === base);
  const versionIssues = issues.some((issue) => issue.path === `${base}/version`);
  const match = options.data?.find((option) => option.id === row.id.trim());
  const ordinal = `${text.one} ${index + 1}`;
  return (
    <li>
      <div className="grid grid-cols-[minmax(0,1fr)_12rem_auto] items-start gap-x-2">
        <div>
          <label htmlFor={`${idPrefix}-id`} className="sr-only">
            {kind === "tools" ? "Tool" : "Agent"} {index + 1}
          </label>
          <Input
            id={`${idPrefix}-id`}
            className="font-mono"
            list={`${idPrefix}-options`}
            autoComplete="off"
            spellCheck={false}
            placeholder={text.placeholder}
            value={row.id}
            aria-invalid={idIssues || undefined}
            aria-describedby={`${idPrefix}-id-note`}
            onChange={(e) => {
              const id = e.target.value;
              const picked = options.data?.find((option) => option.id === id);
              onChange(picked && !row.version.trim() ? { id, version: defaultRange(picked.latestVersion) } : { id });
            }}
          />
          <datalist id={`${idPrefix}-options`}>
            {(options.data ?? []).map((option) => (
              <option key={option.id} value={option.id}>
                {option.latestVersion} · {option.note}
              </option>
            ))}
          </datalist>
          <div id={`${idPrefix}-id-note`}>
            <FieldError issues={issues} path={base} />
            <FieldError issues={issues} path={`${base}/id`} />
            {match ? (
              <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
                latest {match.latestVersion} · {match.note}
              </p>
            ) : null}
          </div>
        </div>
        <div>
          <label htmlFor={`${idPrefix}-version`} className="sr-only">
            Version range of {ordinal}
          </label>
          <Input
            id={`${idPrefix}-version`}
            className="font-mono"
            placeholder="^1"
            spellCheck={false}
            value={row.version}
            aria-invalid={versionIssues || undefined}
            aria-describedby={versionIssues ? `${idPrefix}-version-issues` : undefined}
            onChange={(e) => onChange({ version: e.target.value })}
          />
          <FieldError id={`${idPrefix}-version-issues`} issues={issues} path={`${base}/version`} />
        </div>
        <Button size="sm" variant="ghost" className="h-9 w-16 justify-center text-red-700 dark:text-red-400" onClick={onRemove}>
          Remove<span className="sr-only"> {ordinal}</span>
        </Button>
      </div>
    </li>
  );
}
