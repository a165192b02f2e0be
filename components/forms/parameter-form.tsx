"use client";

/**
 * The configuration form of an agent, exactly as its users see it: one control per field of the
 * `{fields}` description the API answers (`GET /v1/agents/{id}/versions/{v}/form`, `POST /v1/agents/form`).
 * Values are keyed by parameter name; an empty control removes its key (the server then applies the default).
 */
import type { FormField } from "@/lib/agents/form";
import type { Issue } from "@/lib/client/api";
import { inputClass } from "@/components/forms/rjsf-theme";

export type ParameterValues = Record<string, unknown>;

export type ParameterFormProps = {
  fields: FormField[];
  value: ParameterValues;
  onChange(value: ParameterValues): void;
  /** Prefix of the control ids, unique on the page. */
  idPrefix: string;
  /** Server issues at `/parameters/<name>` (as the render and invoke routes answer them). */
  issues?: Issue[];
  disabled?: boolean;
  /** Accessible name of the group. */
  legend?: string;
};

function pointerName(name: string) {
  return `/parameters/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

function displayDefault(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

export function ParameterForm({ fields, value, onChange, idPrefix, issues = [], disabled, legend = "Parameters" }: ParameterFormProps) {
  if (fields.length === 0) return <p className="text-sm text-zinc-500 dark:text-zinc-400">This agent takes no parameters.</p>;
  const set = (name: string, next: unknown) => {
    const copy = { ...value };
    if (next === undefined) delete copy[name];
    else copy[name] = next;
    onChange(copy);
  };
  return (
    <fieldset className="space-y-3" disabled={disabled}>
      <legend className="sr-only">{legend}</legend>
      {fields.map((field) => {
        const id = `${idPrefix}-${field.name}`;
        const fieldIssues = issues.filter((issue) => issue.path === pointerName(field.name));
        const current = value[field.name];
        const hint = field.default !== undefined ? `Default: ${displayDefault(field.default)}` : field.required ? null : "Optional";
        const describedBy = [field.description || hint ? `${id}-description` : null, fieldIssues.length ? `${id}-issues` : null].filter(Boolean).join(" ") || undefined;
        if (field.kind === "checkbox") {
          return (
            <div key={field.name} className="space-y-1">
              <div className="flex items-center gap-2">
                <input
                  id={id}
                  type="checkbox"
                  className="h-4 w-4 rounded border-zinc-300 accent-indigo-600"
                  checked={current === undefined ? field.default === true : current === true}
                  onChange={(event) => set(field.name, event.target.checked)}
                  aria-describedby={describedBy}
                  aria-invalid={fieldIssues.length > 0 || undefined}
                />
                <label htmlFor={id} className="text-sm font-medium">
                  {field.label}
                  {field.required && field.default === undefined ? <span aria-hidden="true" className="text-red-600"> *</span> : null}
                </label>
              </div>
              <FieldHelp id={id} field={field} issues={fieldIssues} hint={hint} />
            </div>
          );
        }
        const text = current === undefined || current === null ? "" : String(current);
        return (
          <div key={field.name} className="space-y-1">
            <label htmlFor={id} className="block text-sm font-medium">
              {field.label}
              {field.required && field.default === undefined ? <span aria-hidden="true" className="text-red-600"> *</span> : null}
            </label>
            <input
              id={id}
              name={field.name}
              type={field.kind === "date" ? "date" : "text"}
              inputMode={field.inputMode}
              placeholder={field.placeholder ?? (field.default !== undefined ? displayDefault(field.default) : undefined)}
              required={field.required && field.default === undefined}
              value={text}
              onChange={(event) => {
                const raw = event.target.value;
                if (raw === "") return set(field.name, undefined);
                if (field.kind === "number") {
                  const number = Number(raw);
                  return set(field.name, raw.trim() !== "" && Number.isFinite(number) ? number : raw);
                }
                set(field.name, raw);
              }}
              aria-describedby={describedBy}
              aria-invalid={fieldIssues.length > 0 || undefined}
              className={inputClass}
            />
            <FieldHelp id={id} field={field} issues={fieldIssues} hint={hint} />
          </div>
        );
      })}
    </fieldset>
  );
}

function FieldHelp({ id, field, issues, hint }: { id: string; field: FormField; issues: Issue[]; hint: string | null }) {
  return (
    <>
      {field.description || hint ? (
        <p id={`${id}-description`} className="text-xs text-zinc-600 dark:text-zinc-400">
          {field.description}
          {field.description && hint ? " · " : null}
          {hint}
        </p>
      ) : null}
      {issues.length ? (
        <p id={`${id}-issues`} role="alert" className="text-xs text-red-700 dark:text-red-400">
          {issues.map((issue) => issue.message).join("; ")}
        </p>
      ) : null}
    </>
  );
}
