"use client";

/**
 * The agent editor (`/agents/new`, `/agents/{agentId}`): the definition form (or its raw JSON) on the left and,
 * live on the right, the parameter form it generates, the rendered instructions and the dry run's problems.
 * Saving registers a new version, proposed from what changed; Ctrl/Cmd+S saves.
 */
import { useCallback, useEffect, useMemo, useState } from "react";
import { useRouter } from "next/navigation";
import Link from "next/link";
import { ApiError, type Issue } from "@/lib/client/api";
import { Button } from "@/components/ui";
import type { AgentDefinition, AgentDetail } from "@/lib/client/agent-types";
import { isDirty, newAgentDraft, previewableParameters, suggestVersion, templateMarkers, type Draft } from "@/lib/client/agent-draft";
import { useCurrentProject } from "@/lib/client/current-project";
import { useAgent } from "@/lib/client/use-agent";
import { useAgentDraftForm } from "@/lib/client/use-agent-draft-form";
import { useAgentVersion } from "@/lib/client/use-agent-version";
import { useRegisterAgent } from "@/lib/client/use-register-agent";
import { useRenderAgentDraft } from "@/lib/client/use-render-agent-draft";
import { useSaveShortcut } from "@/lib/client/use-keyboard-shortcut";
import { useValidateAgent } from "@/lib/client/use-validate-agent";
import type { ParameterValues } from "@/components/forms/parameter-form";
import { DefinitionForm, SECTIONS } from "./definition-form";
import { JsonField } from "./json-field";
import { PreviewPanel } from "./preview-panel";
import { useDebounced } from "./use-debounced";
import { VersionHistory } from "./version-diff";
import { ApprovalExpiryChoiceSection } from "./expiry-choice";
import { EditorShell } from "./editor-shell";

/** `/agents/{agentId}`: loads the agent, then edits from its latest version (or `?version=`). */
export function ExistingAgentEditor({ agentId }: { agentId: string }) {
  const agent = useAgent(agentId);
  const [from, setFrom] = useState<string | null>(null);
  const version = useAgentVersion(agentId, from);
  if (agent.isPending) return <EditorShell.Loading title={agentId} />;
  if (agent.error) return <EditorShell.Failed title={agentId} error={agent.error} />;
  const base = from && version.data ? version.data.definition : agent.data.latest?.definition;
  if (!base) return <EditorShell.Failed title={agentId} error={new Error("This agent has no active version.")} />;
  return <AgentEditor key={`${agentId}@${from && version.data ? from : "latest"}`} agent={agent.data} base={base} onOpenVersion={setFrom} />;
}

type EditorProps = { agent: AgentDetail | null; base: AgentDefinition | null; onOpenVersion?(version: string): void };

/** The editor itself; `agent` and `base` are null for a new agent. */
export function AgentEditor({ agent, base, onOpenVersion }: EditorProps) {
  const router = useRouter();
  const current = useCurrentProject();
  const projectId = agent?.projectId ?? current.projectId;
  const [saved, setSaved] = useState<Draft>(() => (base as Draft | null) ?? newAgentDraft());
  const [draft, setDraft] = useState<Draft>(saved);
  const [values, setValues] = useState<ParameterValues>({});
  const [tab, setTab] = useState<"form" | "json" | "versions">("form");
  const [versionChoice, setVersionChoice] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const settled = useDebounced(draft, 350);
  const settledValues = useDebounced(values, 250);
  const validation = useValidateAgent(projectId, settled);
  const parameters = useMemo(() => previewableParameters(settled.parameters), [settled.parameters]);
  const form = useAgentDraftForm(parameters);
  const sampleValues = useMemo(() => Object.fromEntries(Object.entries(settledValues).filter(([name]) => parameters.some((p) => p.name === name))), [settledValues, parameters]);
  const render = useRenderAgentDraft(
    { id: String(settled.id ?? ""), name: String(settled.name ?? ""), version: String(settled.version ?? ""), instructions: typeof settled.instructions === "string" ? settled.instructions : "", parameters },
    sampleValues,
  );
  const register = useRegisterAgent(projectId);

  const latest = agent?.latestVersion ?? null;
  const suggestion = suggestVersion(agent ? (saved as Draft) : null, latest, draft);
  const version = versionChoice ?? suggestion.version;
  const dirty = isDirty(saved, draft);

  const saveIssues: Issue[] = register.error instanceof ApiError ? register.error.issues : [];
  const issues = useMemo(() => [...(validation.data?.issues ?? []), ...saveIssues], [validation.data, saveIssues]);
  const warnings = validation.data?.warnings ?? [];
  const renderIssues = render.error instanceof ApiError ? render.error.issues : [];
  const markers = useMemo(() => templateMarkers([...renderIssues, ...issues]), [renderIssues, issues]);

  const save = useCallback(() => {
    if (register.isPending) return;
    setNotice(null);
    const definition = { ...draft, version } as AgentDefinition;
    register.mutate(definition, {
      onSuccess: (result) => {
        setSaved(definition as Draft);
        setDraft(definition as Draft);
        setVersionChoice(null);
        setNotice(`Saved version ${result.version}${result.warnings.length ? ` with ${result.warnings.length} warning(s)` : ""}.`);
        if (!agent) router.replace(`/agents/${encodeURIComponent(result.agentId)}${window.location.search}`);
      },
    });
  }, [agent, draft, register, router, version]);

  // Ctrl/Cmd+S saves from anywhere on the page, the code editors included.
  useSaveShortcut(save);

  // Leaving with unsaved changes asks first.
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => window.removeEventListener("beforeunload", onBeforeUnload);
  }, [dirty]);

  const title = agent ? String(draft.name || agent.agentId) : "New agent";
  return (
    <EditorShell
      title={title}
      subtitle={agent ? `${agent.agentId} · latest ${latest ?? "none"}${base && base.version !== latest ? ` · editing from ${base.version}` : ""}` : "Define the agent, check the preview on the right, then save its first version."}
      dirty={dirty}
      tab={tab}
      onTab={setTab}
      hasVersions={Boolean(agent)}
      save={{
        version,
        onVersion: (v) => setVersionChoice(v),
        suggestion,
        onSave: save,
        pending: register.isPending,
        error: register.error,
        notice,
        latest,
      }}
      sections={SECTIONS}
      links={
        agent && latest ? (
          <Button asChild>
            <Link href={`/playground?agent=${encodeURIComponent(agent.agentId)}&version=${encodeURIComponent(base && base.version ? base.version : latest)}`}>Open in playground</Link>
          </Button>
        ) : null
      }
      left={
        tab === "form" ? (
          <DefinitionForm draft={draft} onChange={setDraft} projectId={projectId} issues={issues} warnings={warnings} resolution={validation.data?.resolution} templateMarkers={markers} idLocked={Boolean(agent)} embeddingRouting={validation.data?.embeddingRouting} />
        ) : tab === "json" ? (
          <section aria-labelledby="raw-json-title" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-950">
            <h2 id="raw-json-title" className="text-sm font-semibold">
              Raw JSON
            </h2>
            <p id="raw-json-help" className="mb-2 text-xs text-zinc-600 dark:text-zinc-400">
              The definition exactly as it will be registered. Edits here and in the form are the same draft.
            </p>
            <JsonField id="agent-raw-json" label="Definition JSON" describedBy="raw-json-help" value={draft} onChange={(v) => v && typeof v === "object" && !Array.isArray(v) && setDraft(v as Draft)} minHeight="28rem" />
          </section>
        ) : agent ? (
          <div className="space-y-4">
            <VersionHistory
              agentId={agent.agentId}
              versions={agent.versions}
              onOpen={(v) => {
                onOpenVersion?.(v);
                setTab("form");
              }}
            />
            <ApprovalExpiryChoiceSection agent={agent} />
          </div>
        ) : null
      }
      right={<PreviewPanel form={form} render={render} validation={validation} values={values} onValuesChange={setValues} />}
    />
  );
}
