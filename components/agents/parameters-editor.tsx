"use client";

/** The parameters editor: one row per declared parameter (name, type, required, default, description). */
import type { Issue } from "@/lib/client/api";
import { fieldId, type PromptParameter } from "@/lib/client/agent-draft";
import { Problems, inputClass, issuesUnder } from "./fields";

const TYPES = ["string", "number", "boolean", "date"] as const;

type Props = {
  parameters: unknown[];
  onChange(parameters: unknown[]): void;
  issues: readonly Issue[];
  warnings: readonly Issue[];
};

function defaultFromInput(type: string, raw: string): unknown {
  if (raw === "") return undefined;
  if (type === "number") {
    const n = Number(raw);
    return raw.trim() !== "" && Number.isFinite(n) ? n : raw;
  }
  if (type === "boolean") return raw === "true" ? true : raw === "false" ? false : raw;
  return raw;
}

export function ParametersEditor({ parameters, onChange, issues, warnings }: Props) {
  const update = (index: number, patch: Partial<Record<keyof PromptParameter, unknown>>) => {
    const next = [...parameters];
    const row = { ...(next[index] as Record<string, unknown>) };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete row[key];
      else row[key] = value;
    }
    next[index] = row;
    onChange(next);
  };
  return (
    <div className="space-y-3">
      {parameters.length === 0 ? <p className="text-sm text-zinc-600 dark:text-zinc-400">No parameters. Add one to make a value configurable at invoke time; reference it as {"{{ name }}"} in the instructions.</p> : null}
      {parameters.map((raw, index) => {
        const param = (raw ?? {}) as Record<string, unknown>;
        const base = `/parameters/${index}`;
        const type = typeof param.type === "string" ? param.type : "string";
        const rowLabel = typeof param.name === "string" && param.name ? `parameter ${param.name}` : `parameter ${index + 1}`;
        const rowIssues = issuesUnder(issues, base);
        const rowWarnings = issuesUnder(warnings, base);
        const defaultValue = param.default === undefined ? "" : typeof param.default === "string" ? param.default : JSON.stringify(param.default);
        return (
          <fieldset key={index} id={fieldId(base)} className="rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
            <legend className="px-1 text-xs font-medium text-zinc-600 dark:text-zinc-400">Parameter {index + 1}</legend>
            <div className="grid grid-cols-12 items-end gap-2">
              <div className="col-span-4 space-y-1">
                <label className="block text-xs font-medium" htmlFor={fieldId(`${base}/name`)}>
                  Name
                </label>
                <input id={fieldId(`${base}/name`)} className={inputClass} value={typeof param.name === "string" ? param.name : ""} placeholder="e.g. maxResults" onChange={(e) => update(index, { name: e.target.value })} aria-invalid={issuesUnder(issues, `${base}/name`).length > 0 || undefined} />
              </div>
              <div className="col-span-3 space-y-1">
                <label className="block text-xs font-medium" htmlFor={fieldId(`${base}/type`)}>
                  Type
                </label>
                <select id={fieldId(`${base}/type`)} className={inputClass} value={type} onChange={(e) => update(index, { type: e.target.value, default: undefined })}>
                  {TYPES.map((t) => (
                    <option key={t} value={t}>
                      {t}
                    </option>
                  ))}
                </select>
              </div>
              <div className="col-span-3 space-y-1">
                <label className="block text-xs font-medium" htmlFor={fieldId(`${base}/default`)}>
                  Default
                </label>
                {type === "boolean" ? (
                  <select id={fieldId(`${base}/default`)} className={inputClass} value={defaultValue} onChange={(e) => update(index, { default: defaultFromInput(type, e.target.value) })}>
                    <option value="">none</option>
                    <option value="true">true</option>
                    <option value="false">false</option>
                  </select>
                ) : (
                  <input
                    id={fieldId(`${base}/default`)}
                    className={inputClass}
                    inputMode={type === "number" ? "decimal" : undefined}
                    placeholder={type === "date" ? "YYYY-MM-DD" : "none"}
                    value={defaultValue}
                    onChange={(e) => update(index, { default: defaultFromInput(type, e.target.value) })}
                    aria-invalid={issuesUnder(issues, `${base}/default`).length > 0 || undefined}
                  />
                )}
              </div>
              <div className="col-span-2 flex items-center gap-1.5 pb-1.5">
                <input id={fieldId(`${base}/required`)} type="checkbox" className="h-4 w-4 accent-indigo-600" checked={param.required !== false} onChange={(e) => update(index, { required: e.target.checked ? undefined : false })} />
                <label className="text-xs font-medium" htmlFor={fieldId(`${base}/required`)}>
                  Required
                </label>
              </div>
              <div className="col-span-10 space-y-1">
                <label className="block text-xs font-medium" htmlFor={fieldId(`${base}/description`)}>
                  Description
                </label>
                <input id={fieldId(`${base}/description`)} className={inputClass} value={typeof param.description === "string" ? param.description : ""} placeholder="What the caller should supply" onChange={(e) => update(index, { description: e.target.value || undefined })} />
              </div>
              <div className="col-span-2 flex justify-end">
                <button type="button" className="rounded-md px-2 py-1.5 text-xs font-medium text-red-700 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:text-red-400 dark:hover:bg-red-950" onClick={() => onChange(parameters.filter((_, i) => i !== index))}>
                  Remove<span className="sr-only"> {rowLabel}</span>
                </button>
              </div>
            </div>
            <Problems issues={rowIssues} warnings={rowWarnings} />
          </fieldset>
        );
      })}
      <button type="button" className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:border-zinc-700 dark:hover:bg-zinc-900" onClick={() => onChange([...parameters, { name: "", type: "string" }])}>
        Add parameter
      </button>
    </div>
  );
}
