"use client";

/**
 * The editor page's frame: the title with the unsaved-changes mark, the save bar at the top right (version to
 * save, the suggestion and why, Save), the Form / Raw JSON / Versions tabs, and the two columns.
 */
import type { ReactNode } from "react";
import type { VersionSuggestion } from "@/lib/client/agent-draft";
import { Badge, Button, ErrorBanner, Kbd, PageHeader, Skeleton, SkeletonRows, Spinner, Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui";
import { inputClass } from "./fields";

type Tab = "form" | "json" | "versions";

type SaveBar = {
  version: string;
  onVersion(version: string): void;
  suggestion: VersionSuggestion;
  onSave(): void;
  pending: boolean;
  error: unknown;
  notice: string | null;
  latest: string | null;
};

type Props = {
  title: string;
  subtitle: string;
  dirty: boolean;
  tab: Tab;
  onTab(tab: Tab): void;
  hasVersions: boolean;
  save: SaveBar;
  sections: readonly (readonly [string, string])[];
  left: ReactNode;
  right: ReactNode;
  /** Links beside the save bar (e.g. "Open in playground"). */
  links?: ReactNode;
};

const LEVEL_WORDS = { major: "major", minor: "minor", patch: "patch" } as const;

function suggestionText(s: VersionSuggestion, latest: string | null): string {
  if (!latest) return "First version: 1.0.0 unless you choose another.";
  if (!s.level) return `No changes since this version; saving would register ${s.version}.`;
  return `Suggested ${s.version} (${LEVEL_WORDS[s.level]}: ${s.reasons.slice(0, 2).join("; ")}${s.reasons.length > 2 ? "; …" : ""}). Patch for instructions or descriptions, minor for additions, major for removed or changed parameters.`;
}

export function EditorShell({ title, subtitle, dirty, tab, onTab, hasVersions, save, sections, left, right, links }: Props) {
  return (
    <div>
      <PageHeader
        title={
          <span className="flex items-center gap-3">
            {title}
            {dirty ? <Badge tone="warning">Unsaved changes</Badge> : null}
          </span>
        }
        description={subtitle}
        actions={
          <div className="flex items-end gap-2">
            {links}
            <div className="w-28 space-y-1">
              <label htmlFor="agent-save-version" className="block text-xs font-medium text-zinc-700 dark:text-zinc-300">
                Save as version
              </label>
              <input id="agent-save-version" className={`${inputClass} font-mono`} value={save.version} onChange={(e) => save.onVersion(e.target.value)} aria-describedby="agent-save-suggestion" />
            </div>
            <Button variant="primary" onClick={save.onSave} disabled={save.pending} aria-keyshortcuts="Control+S Meta+S">
              {save.pending ? <Spinner /> : null}
              Save version
              <Kbd className="border-indigo-400 bg-indigo-500 text-white dark:border-indigo-300 dark:bg-indigo-400">Ctrl S</Kbd>
            </Button>
          </div>
        }
      >
        <p id="agent-save-suggestion" className="mt-2 max-w-3xl text-xs text-zinc-600 dark:text-zinc-400">
          {suggestionText(save.suggestion, save.latest)}
        </p>
      </PageHeader>
      <div aria-live="polite" className="mb-3 space-y-2 empty:hidden">
        {save.notice ? (
          <p role="status" className="rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100">
            {save.notice}
          </p>
        ) : null}
        <ErrorBanner error={save.error} title="The version was not saved" />
      </div>
      <Tabs value={tab} onValueChange={(v) => onTab(v as Tab)}>
        <TabsList aria-label="Editor views">
          <TabsTrigger value="form">Form</TabsTrigger>
          <TabsTrigger value="json">Raw JSON</TabsTrigger>
          {hasVersions ? <TabsTrigger value="versions">Versions</TabsTrigger> : null}
        </TabsList>
        <div className="mt-4 grid grid-cols-[minmax(0,1fr)_minmax(20rem,26rem)] gap-6">
          <TabsContent value={tab} className="min-w-0 pt-0">
            {tab === "form" ? (
              <nav aria-label="Definition sections" className="mb-3 flex flex-wrap gap-x-1 text-xs">
                {sections.map(([id, label]) => (
                  <a key={id} href={`#${id}`} className="inline-flex min-h-6 items-center rounded px-1.5 text-indigo-700 hover:underline dark:text-indigo-300">
                    {label}
                  </a>
                ))}
              </nav>
            ) : null}
            {left}
          </TabsContent>
          <aside aria-label="Live preview" className="min-w-0">
            <div className="sticky top-[4.5rem] max-h-[calc(100vh-5.5rem)] overflow-auto">{right}</div>
          </aside>
        </div>
      </Tabs>
    </div>
  );
}

EditorShell.Loading = function Loading({ title }: { title: string }) {
  return (
    <div>
      <PageHeader title={title} description="Loading the agent…" />
      <div className="grid grid-cols-[minmax(0,1fr)_minmax(20rem,26rem)] gap-6">
        <SkeletonRows rows={8} label="Loading the agent" />
        <Skeleton className="h-64" />
      </div>
    </div>
  );
};

EditorShell.Failed = function Failed({ title, error }: { title: string; error: unknown }) {
  return (
    <div>
      <PageHeader title={title} />
      <ErrorBanner error={error} title="Cannot open this agent" />
    </div>
  );
};
