"use client";

/**
 * The definition as a form, one section per part of the Agent schema: Basics, Instructions, Parameters, Tools,
 * Retrieval, Guardrails, Model, Conversation, Budget, Output, Tool errors. Every control writes straight into
 * the draft (the definition JSON); problems from the dry run are shown beside the field their pointer names.
 */
import type { Issue } from "@/lib/client/api";
import type { AgentDryRun, ToolResolutionItem } from "@/lib/client/agent-types";
import { cn } from "@/components/ui";
import { fieldId, setIn, type Draft, type TemplateMarker } from "@/lib/client/agent-draft";
import { CodeEditor } from "@/components/forms/code-editor";
import { CheckboxInput, Field, ListInput, NumberInput, Problems, Section, SelectInput, TextInput, issuesUnder } from "./fields";
import { JsonField } from "./json-field";
import { ParametersEditor } from "./parameters-editor";
import { ToolPicker } from "./tool-picker";

type Props = {
  draft: Draft;
  onChange(draft: Draft): void;
  projectId: string;
  issues: readonly Issue[];
  warnings: readonly Issue[];
  resolution: ToolResolutionItem[] | undefined;
  templateMarkers: TemplateMarker[];
  /** The id cannot change once the agent exists. */
  idLocked: boolean;
  /** Which embedding model would serve retrieval by meaning (from the last validation). */
  embeddingRouting?: AgentDryRun["embeddingRouting"];
};

const SCOPES = [
  { value: "same-conversation", label: "Same conversation" },
  { value: "same-project", label: "Same project" },
  { value: "tenant", label: "Whole tenant" },
];
const MODES = [
  { value: "keyword", label: "Keyword" },
  { value: "semantic", label: "Semantic" },
  { value: "both", label: "Both" },
];
const RETRY_KINDS = [
  { value: "invalid-arguments", label: "Invalid arguments", help: "arguments that don't fit the input schema" },
  { value: "unknown-tool", label: "Unknown tool", help: "a tool the agent doesn't have" },
  { value: "tool-error", label: "Tool error", help: "a tool that ran and failed" },
];

const AUTO_VARS = "today, now, agent.id, agent.name, agent.version, conversation.id, conversation.turn";

export const SECTIONS = [
  ["basics", "Basics"],
  ["instructions", "Instructions"],
  ["parameters", "Parameters"],
  ["tools", "Tools"],
  ["retrieval", "Retrieval"],
  ["guardrails", "Guardrails"],
  ["model", "Model"],
  ["conversation", "Conversation"],
  ["budget", "Budget"],
  ["output", "Output"],
  ["tool-errors", "Tool errors"],
] as const;

export function DefinitionForm({ draft, onChange, projectId, issues, warnings, resolution, templateMarkers, idLocked, embeddingRouting }: Props) {
  const set = (path: (string | number)[], value: unknown) => onChange(setIn(draft, path, value));
  const list = (key: string) => (Array.isArray(draft[key]) ? (draft[key] as unknown[]) : []);
  const object = (key: string) => (draft[key] && typeof draft[key] === "object" ? (draft[key] as Record<string, unknown>) : {});
  const output = draft.output as { schema?: unknown; name?: string; maxRepairs?: number } | undefined;
  const toolErrors = object("toolErrors");
  const retryOn = Array.isArray(toolErrors.retryOn) ? (toolErrors.retryOn as string[]) : null;
  const instructionsIssues = issuesUnder(issues, "/instructions").filter((issue) => !/^line \d+, column \d+: /.test(issue.message));

  return (
    <div className="space-y-4">
      <Section id="basics" title="Basics">
        <div className="grid grid-cols-2 gap-3">
          <TextInput pointer="/id" label="Agent id" value={draft.id} keepEmpty disabled={idLocked} onChange={(v) => set(["id"], v ?? "")} issues={issues} warnings={warnings} placeholder="acme.citation-verifier" help={idLocked ? "The id of a registered agent cannot change." : "Convention: <pack>.<agent>."} />
          <TextInput pointer="/name" label="Name" value={draft.name} keepEmpty onChange={(v) => set(["name"], v ?? "")} issues={issues} placeholder="Citation verifier" />
        </div>
        <TextInput pointer="/description" label="Description" value={draft.description} onChange={(v) => set(["description"], v)} issues={issues} placeholder="What the agent does" />
        <ListInput pointer="/tags" label="Tags" value={draft.tags} onChange={(v) => set(["tags"], v)} issues={issues} placeholder="support, research" />
      </Section>

      <Section id="instructions" title="Instructions" description={<>A Liquid template rendered at the top of every turn: {"{{ variable }}"}, {"{% if %}"}, {"{% for %}"}, {"{{ value | filter }}"}. Variables: the parameters and {AUTO_VARS}.</>}>
        <div id={fieldId("/instructions")}>
          <CodeEditor
            language="liquid"
            ariaLabel="Instructions"
            ariaDescribedBy="instructions-problems"
            value={typeof draft.instructions === "string" ? draft.instructions : ""}
            onChange={(v) => set(["instructions"], v)}
            markers={templateMarkers}
            minHeight="9rem"
            placeholder="You are {{ agent.name }}. Help {{ customer }} with…"
          />
        </div>
        <div id="instructions-problems" aria-live="polite">
          {templateMarkers.length ? (
            <ul className="space-y-0.5 text-xs text-red-700 dark:text-red-400">
              {templateMarkers.map((m, i) => (
                <li key={i}>
                  Line {m.line}, column {m.column}: {m.message}
                </li>
              ))}
            </ul>
          ) : null}
          <Problems issues={instructionsIssues} />
        </div>
      </Section>

      <Section id="parameters" title="Parameters" description="Typed values supplied at invoke time; the form users fill in is generated from them (shown on the right).">
        <ParametersEditor parameters={list("parameters")} onChange={(v) => set(["parameters"], v)} issues={issues} warnings={warnings} />
      </Section>

      <Section id="tools" title="Tools" description="Each reference resolves at run start to the highest active version that satisfies its range.">
        <ToolPicker projectId={projectId} tools={list("tools")} onChange={(v) => set(["tools"], v)} resolution={resolution} issues={issues} warnings={warnings} />
      </Section>

      <Section id="retrieval" title="Retrieval" description="Fact-retrieval intents run before every turn to ground the model's context.">
        {list("retrieval").map((raw, index) => {
          const intent = (raw ?? {}) as Record<string, unknown>;
          const base = `/retrieval/${index}`;
          return (
            <fieldset key={index} id={fieldId(base)} className="grid grid-cols-2 gap-3 rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
              <legend className="px-1 text-xs font-medium text-zinc-600 dark:text-zinc-400">Intent {index + 1}</legend>
              <ListInput pointer={`${base}/types`} label="Fact types" value={intent.types} keepEmpty onChange={(v) => set(["retrieval", index, "types"], v ?? [])} issues={issues} placeholder="preference, contact" />
              <SelectInput pointer={`${base}/scope`} label="Scope" value={intent.scope} options={SCOPES} onChange={(v) => set(["retrieval", index, "scope"], v)} issues={issues} />
              <NumberInput pointer={`${base}/limit`} label="Limit" integer value={intent.limit} onChange={(v) => set(["retrieval", index, "limit"], v)} issues={issues} placeholder="10" help="Facts per turn (default 10)." />
              <SelectInput pointer={`${base}/mode`} label="Mode" value={intent.mode} options={MODES} unsetLabel="Default (keyword)" onChange={(v) => set(["retrieval", index, "mode"], v)} issues={issues} />
              <div className="col-span-2 flex justify-end">
                <button type="button" className="inline-flex min-h-6 items-center rounded px-2 text-xs font-medium text-red-700 hover:underline dark:text-red-400" onClick={() => set(["retrieval", index], undefined)}>
                  Remove<span className="sr-only"> retrieval intent {index + 1}</span>
                </button>
              </div>
            </fieldset>
          );
        })}
        <button type="button" className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-50 dark:border-zinc-700 dark:hover:bg-zinc-900" onClick={() => set(["retrieval", list("retrieval").length], { types: [], scope: "same-conversation" })}>
          Add retrieval intent
        </button>
        <EmbeddingNote routing={embeddingRouting} byMeaning={list("retrieval").some((raw) => ["semantic", "both"].includes(String((raw as Record<string, unknown> | null)?.mode)))} />
      </Section>

      <Section id="guardrails" title="Guardrails" description="Guardrail ids evaluated on each turn's final response, before it is stored.">
        <ListInput pointer="/guardrails" label="Guardrail ids" value={draft.guardrails} keepEmpty onChange={(v) => set(["guardrails"], v ?? [])} issues={issues} placeholder="acme.no-pii" />
      </Section>

      <Section id="model" title="Model" description="What the router needs to serve the agent, and soft preferences.">
        <Field pointer="/capabilities" label="Capabilities (JSON)" issues={issues} help={'One entry per resource kind, e.g. [{"kind": "llm-inference"}]; {} means llm-inference with no requirements.'}>
          {({ id, describedBy }) => <JsonField id={`${id}-editor`} label="Capabilities (JSON)" describedBy={describedBy} value={draft.capabilities ?? []} onChange={(v) => set(["capabilities"], v)} minHeight="3rem" />}
        </Field>
        <div className="grid grid-cols-2 gap-3">
          <TextInput pointer="/preferredProvider" label="Preferred provider" value={draft.preferredProvider} onChange={(v) => set(["preferredProvider"], v)} issues={issues} placeholder="any" />
          <TextInput pointer="/preferredModel" label="Preferred model" value={draft.preferredModel} onChange={(v) => set(["preferredModel"], v)} issues={issues} placeholder="any" />
        </div>
        <CheckboxInput pointer="/parallelToolCalls" label="Parallel tool calls" checked={draft.parallelToolCalls !== false} onChange={(v) => set(["parallelToolCalls"], v ? undefined : false)} issues={issues} help="Let the model call several tools in one step (default on)." />
      </Section>

      <Section id="conversation" title="Conversation" description="Conversation policy.">
        <div className="grid grid-cols-3 gap-3">
          <NumberInput pointer="/conversationPolicy/historyLimit" label="History limit" integer value={object("conversationPolicy").historyLimit} onChange={(v) => set(["conversationPolicy", "historyLimit"], v)} issues={issues} placeholder="all" />
          <NumberInput pointer="/conversationPolicy/autoCloseAfterInactiveSeconds" label="Auto-close after (s)" integer value={object("conversationPolicy").autoCloseAfterInactiveSeconds} onChange={(v) => set(["conversationPolicy", "autoCloseAfterInactiveSeconds"], v)} issues={issues} placeholder="never" />
          <NumberInput pointer="/conversationPolicy/hitlAfterTurns" label="Human review after turns" integer value={object("conversationPolicy").hitlAfterTurns} onChange={(v) => set(["conversationPolicy", "hitlAfterTurns"], v)} issues={issues} placeholder="never" />
        </div>
      </Section>

      <Section id="budget" title="Budget" description="Caps per turn.">
        <div className="grid grid-cols-3 gap-3">
          <NumberInput pointer="/budget/maxSteps" label="Max steps" integer value={object("budget").maxSteps} onChange={(v) => set(["budget", "maxSteps"], v)} issues={issues} placeholder="8" />
          <NumberInput pointer="/budget/maxCostUsd" label="Max cost (USD)" value={object("budget").maxCostUsd} onChange={(v) => set(["budget", "maxCostUsd"], v)} issues={issues} placeholder="none" />
          <NumberInput pointer="/budget/maxWallMs" label="Max wall time (ms)" integer value={object("budget").maxWallMs} onChange={(v) => set(["budget", "maxWallMs"], v)} issues={issues} placeholder="120000" />
        </div>
      </Section>

      <Section id="output" title="Output" description="A typed result: the final answer must be JSON matching the schema, or it is sent back for repair.">
        <CheckboxInput pointer="/output" label="Typed output" checked={output !== undefined} onChange={(v) => set(["output"], v ? { schema: { type: "object" } } : undefined)} issues={output ? [] : issues} />
        {output ? (
          <>
            <div className="grid grid-cols-2 gap-3">
              <TextInput pointer="/output/name" label="Output name" value={output.name} onChange={(v) => set(["output", "name"], v)} issues={issues} placeholder="output" />
              <NumberInput pointer="/output/maxRepairs" label="Max repairs" integer value={output.maxRepairs} onChange={(v) => set(["output", "maxRepairs"], v)} issues={issues} placeholder="1" />
            </div>
            <Field pointer="/output/schema" label="Output schema (JSON Schema 2020-12)" issues={issues}>
              {({ id, describedBy }) => <JsonField id={`${id}-editor`} label="Output schema (JSON Schema 2020-12)" describedBy={describedBy} value={output.schema ?? {}} onChange={(v) => set(["output", "schema"], v)} />}
            </Field>
          </>
        ) : null}
      </Section>

      <Section id="tool-errors" title="Tool errors" description="Failed tool calls sent back to the model so it can correct the call.">
        <NumberInput pointer="/toolErrors/maxRetries" label="Max retries per turn" integer value={toolErrors.maxRetries} onChange={(v) => set(["toolErrors", "maxRetries"], v)} issues={issues} placeholder="1" />
        <fieldset id={fieldId("/toolErrors/retryOn")} className="space-y-1">
          <legend className="text-sm font-medium">Retry on</legend>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">{retryOn ? "Only the kinds checked." : "Default: invalid arguments and unknown tool."}</p>
          {RETRY_KINDS.map((kind) => {
            const effective = retryOn ?? ["invalid-arguments", "unknown-tool"];
            return (
              <label key={kind.value} className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  className="h-4 w-4 accent-indigo-600"
                  checked={effective.includes(kind.value)}
                  onChange={(e) => set(["toolErrors", "retryOn"], e.target.checked ? [...effective, kind.value] : effective.filter((k) => k !== kind.value))}
                />
                {kind.label} <span className="text-xs text-zinc-600 dark:text-zinc-400">({kind.help})</span>
              </label>
            );
          })}
          <Problems issues={issuesUnder(issues, "/toolErrors/retryOn")} />
        </fieldset>
      </Section>
    </div>
  );
}

/** Which embedding model retrieval by meaning would use: keyword matches words, semantic and both need a model. */
function EmbeddingNote({ routing, byMeaning }: { routing: AgentDryRun["embeddingRouting"] | undefined; byMeaning: boolean }) {
  const text = !routing
    ? null
    : "providerId" in routing
      ? `Retrieval by meaning (semantic, both) would embed with ${routing.providerId} / ${routing.model}${routing.providerId === "dev-embed" ? " — not a real model: it matches shared words and word parts, not meaning" : ""}.`
      : `No embedding provider serves this agent: ${routing.message}`;
  if (!text) return null;
  return (
    <p className={cn("text-xs", byMeaning && routing && !("providerId" in routing) ? "text-red-700 dark:text-red-400" : "text-zinc-600 dark:text-zinc-400")} data-testid="embedding-routing">
      {text}
    </p>
  );
}
