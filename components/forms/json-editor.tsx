"use client";

import { inputClass } from "@/components/forms/rjsf-theme";

/**
 * A JSON text editor: a monospaced textarea whose parse error (with line and column) is shown beneath it and
 * announced with the control. Used where a form cannot express a schema, and as the "JSON" view of every form.
 */
export function JsonEditor(props: {
  id: string;
  label: string;
  value: string;
  onChange(text: string): void;
  /** The parse error or schema problems to show, if any. */
  error?: string | null;
  description?: string;
  disabled?: boolean;
  rows?: number;
}) {
  const { id, label, value, onChange, error, description, disabled, rows = 12 } = props;
  const describedBy = [description ? `${id}-description` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-zinc-800 dark:text-zinc-200">{label}</label>
      {description ? <p id={`${id}-description`} className="text-xs text-zinc-500 dark:text-zinc-400">{description}</p> : null}
      <textarea
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        rows={rows}
        spellCheck={false}
        autoCapitalize="off"
        autoCorrect="off"
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        className={`${inputClass} font-mono text-xs leading-5`}
      />
      {error ? <p id={`${id}-error`} role="alert" className="whitespace-pre-wrap text-xs font-medium text-red-700 dark:text-red-400">{error}</p> : null}
    </div>
  );
}
