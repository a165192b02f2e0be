"use client";

/**
 * The editor's right column, live: the parameter form as the agent's users will see it (its values are the
 * preview's sample values), the rendered instructions, and every problem of the dry run linked to its field.
 */
import { ApiError, type Issue } from "@/lib/client/api";
import type { AgentDryRun, FormField, RenderedInstructions } from "@/lib/client/agent-types";
import { fieldElementFor } from "@/lib/client/agent-draft";
import { ParameterForm, type ParameterValues } from "@/components/forms/parameter-form";

type Query<T> = { data?: T; error: unknown; isFetching: boolean; isPending: boolean };

type Props = {
  form: Query<{ fields: FormField[] }>;
  render: Query<RenderedInstructions>;
  validation: Query<AgentDryRun>;
  values: ParameterValues;
  onValuesChange(values: ParameterValues): void;
  /** The validate call itself failed (e.g. an unknown field in raw JSON). */
};

function issuesOf(error: unknown): (Issue & { line?: number; column?: number })[] {
  return error instanceof ApiError ? (error.issues as (Issue & { line?: number; column?: number })[]) : [];
}

/** Move focus to the field a problem's pointer names. */
export function focusField(pointer: string) {
  const element = fieldElementFor(pointer);
  if (!element) return;
  element.scrollIntoView({ block: "center" });
  const focusable = element.matches("input, select, textarea, button, [contenteditable]") ? element : element.querySelector<HTMLElement>("input, select, textarea, button, [contenteditable=true]");
  (focusable ?? element).focus();
}

export function PreviewPanel({ form, render, validation, values, onValuesChange }: Props) {
  const renderIssues = issuesOf(render.error);
  const parameterIssues = renderIssues.filter((i) => i.path.startsWith("/parameters/"));
  const templateBroken = renderIssues.some((i) => i.path === "/definition/instructions" && /^line \d+, column \d+: /.test(i.message));
  const problems = validation.data?.issues ?? [];
  const warnings = validation.data?.warnings ?? [];
  return (
    <div className="space-y-4">
      <section aria-labelledby="preview-form-title" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-950">
        <h2 id="preview-form-title" className="text-sm font-semibold">
          Parameter form
        </h2>
        <p className="mb-3 text-xs text-zinc-600 dark:text-zinc-400">As users of the agent will see it. The values here are the preview&apos;s sample values.</p>
        {form.data ? (
          <ParameterForm fields={form.data.fields} value={values} onChange={onValuesChange} idPrefix="preview-param" issues={parameterIssues} legend="Parameter form" />
        ) : form.error ? (
          <p className="text-sm text-red-700 dark:text-red-400">Cannot build the form: {(form.error as Error).message}</p>
        ) : (
          <div className="h-16 animate-pulse rounded bg-zinc-100 dark:bg-zinc-900" role="status" aria-label="Loading the form" />
        )}
      </section>

      <section aria-labelledby="preview-render-title" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-950">
        <div className="flex items-center justify-between">
          <h2 id="preview-render-title" className="text-sm font-semibold">
            Rendered instructions
          </h2>
          {render.isFetching ? <span className="text-xs text-zinc-500">Updating…</span> : null}
        </div>
        <div aria-live="polite" className="mt-2">
          {templateBroken ? (
            <p className="text-sm text-red-700 dark:text-red-400">The template has a problem (marked in the editor); fix it to see the preview.</p>
          ) : parameterIssues.length ? (
            <p className="text-sm text-amber-800 dark:text-amber-300">Fill in the parameter form to see the preview: {parameterIssues.map((i) => `${i.path.slice("/parameters/".length)} — ${i.message}`).join("; ")}.</p>
          ) : render.error ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">Preview unavailable: {renderIssues.length ? renderIssues.map((i) => `${i.path.replace(/^\/definition/, "")} ${i.message}`).join("; ") : (render.error as Error).message}.</p>
          ) : null}
          {render.data && !render.error ? (
            <pre aria-label="Rendered text" tabIndex={0} className="max-h-80 overflow-auto whitespace-pre-wrap rounded-md bg-zinc-50 p-3 font-mono text-xs text-zinc-900 dark:bg-zinc-900 dark:text-zinc-100">
              {render.data.rendered || <span className="text-zinc-500">(empty)</span>}
            </pre>
          ) : null}
          {!render.data && !render.error ? <div className="h-20 animate-pulse rounded bg-zinc-100 dark:bg-zinc-900" role="status" aria-label="Loading the preview" /> : null}
        </div>
      </section>

      <section aria-labelledby="problems-title" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-950">
        <div className="flex items-center justify-between">
          <h2 id="problems-title" className="text-sm font-semibold">
            Problems{" "}
            {validation.data ? (
              <span className="font-normal text-zinc-600 dark:text-zinc-400">
                ({problems.length}){warnings.length ? ` · ${plural(warnings.length, "warning")}` : ""}
              </span>
            ) : null}
          </h2>
          {validation.isFetching ? <span className="text-xs text-zinc-500">Checking…</span> : null}
        </div>
        <div aria-live="polite" className="mt-2 space-y-2">
          {validation.error ? <p className="text-sm text-red-700 dark:text-red-400">Cannot check the definition: {(validation.error as Error).message}</p> : null}
          {validation.data && problems.length === 0 && warnings.length === 0 ? <p className="text-sm text-green-800 dark:text-green-400">No problems: this definition can be saved.</p> : null}
          {validation.data && problems.length === 0 && warnings.length > 0 ? <p className="text-sm text-zinc-700 dark:text-zinc-300">No errors; {plural(warnings.length, "warning")} below.</p> : null}
          <ProblemList label="Problems" items={problems} tone="error" />
          <ProblemList label="Warnings" items={warnings} tone="warning" />
          {validation.data && "providerId" in validation.data.routing ? (
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              Would run on {validation.data.routing.providerId} / {validation.data.routing.model}.
            </p>
          ) : null}
        </div>
      </section>
    </div>
  );
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

function ProblemList({ label, items, tone }: { label: string; items: Issue[]; tone: "error" | "warning" }) {
  if (!items.length) return null;
  return (
    <ul aria-label={label} className="space-y-1">
      {items.map((item, i) => (
        <li key={i}>
          <button
            type="button"
            onClick={() => focusField(item.path)}
            className={`min-h-6 w-full rounded-md px-2 py-1 text-left text-xs hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:hover:bg-zinc-900 ${tone === "error" ? "text-red-800 dark:text-red-300" : "text-amber-900 dark:text-amber-200"}`}
          >
            <span className="font-mono">{item.path || "/"}</span> {item.message}
          </button>
        </li>
      ))}
    </ul>
  );
}
