"use client";

/**
 * Labelled controls of the definition form. Each control's id is `fieldId(pointer)` so a problem at that
 * JSON pointer can be shown beside it and focused from the problems list.
 */
import type { ReactNode } from "react";
import type { Issue } from "@/lib/client/api";
import { fieldId } from "@/lib/client/agent-draft";
import { inputClass } from "@/components/forms/rjsf-theme";

export { inputClass };

/** Problems exactly at `pointer` or below it (`/budget` collects `/budget/maxSteps`). */
export function issuesUnder(issues: readonly Issue[], pointer: string): Issue[] {
  return issues.filter((issue) => issue.path === pointer || issue.path.startsWith(`${pointer}/`));
}

type FieldProps = {
  pointer: string;
  label: string;
  help?: ReactNode;
  issues: readonly Issue[];
  warnings?: readonly Issue[];
  /** Only problems exactly at the pointer (for a container whose children show their own). */
  exact?: boolean;
  children: (control: { id: string; describedBy: string | undefined; invalid: boolean }) => ReactNode;
  className?: string;
};

/** A label, a control, its help and its problems. */
export function Field({ pointer, label, help, issues, warnings = [], exact, children, className }: FieldProps) {
  const id = fieldId(pointer);
  const own = exact ? issues.filter((i) => i.path === pointer) : issuesUnder(issues, pointer);
  const ownWarnings = exact ? warnings.filter((i) => i.path === pointer) : issuesUnder(warnings, pointer);
  const describedBy = [help ? `${id}-help` : null, own.length || ownWarnings.length ? `${id}-problems` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={className ?? "space-y-1"}>
      <label htmlFor={id} className="block text-sm font-medium text-zinc-800 dark:text-zinc-200">
        {label}
      </label>
      {children({ id, describedBy, invalid: own.length > 0 })}
      {help ? (
        <p id={`${id}-help`} className="text-xs text-zinc-600 dark:text-zinc-400">
          {help}
        </p>
      ) : null}
      <Problems id={`${id}-problems`} issues={own} warnings={ownWarnings} />
    </div>
  );
}

/** Problems and warnings shown under a field. */
export function Problems({ id, issues, warnings = [] }: { id?: string; issues: readonly Issue[]; warnings?: readonly Issue[] }) {
  if (!issues.length && !warnings.length) return null;
  return (
    <ul id={id} className="space-y-0.5 text-xs">
      {issues.map((issue, i) => (
        <li key={`e${i}`} className="text-red-700 dark:text-red-400">
          {issue.message}
        </li>
      ))}
      {warnings.map((issue, i) => (
        <li key={`w${i}`} className="text-amber-800 dark:text-amber-300">
          Warning: {issue.message}
        </li>
      ))}
    </ul>
  );
}

export function TextInput(props: {
  pointer: string;
  label: string;
  value: unknown;
  onChange(value: string | undefined): void;
  issues: readonly Issue[];
  warnings?: readonly Issue[];
  help?: ReactNode;
  placeholder?: string;
  /** Keep "" instead of removing the key (required strings). */
  keepEmpty?: boolean;
  disabled?: boolean;
  className?: string;
}) {
  return (
    <Field pointer={props.pointer} label={props.label} help={props.help} issues={props.issues} warnings={props.warnings} className={props.className}>
      {({ id, describedBy, invalid }) => (
        <input
          id={id}
          type="text"
          className={inputClass}
          value={typeof props.value === "string" ? props.value : props.value === undefined ? "" : String(props.value)}
          placeholder={props.placeholder}
          disabled={props.disabled}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          onChange={(event) => props.onChange(event.target.value === "" && !props.keepEmpty ? undefined : event.target.value)}
        />
      )}
    </Field>
  );
}

/** A number input: an empty box removes the key; text that is not a number is kept as typed so the server names the problem. */
export function NumberInput(props: {
  pointer: string;
  label: string;
  value: unknown;
  onChange(value: number | string | undefined): void;
  issues: readonly Issue[];
  help?: ReactNode;
  placeholder?: string;
  integer?: boolean;
}) {
  return (
    <Field pointer={props.pointer} label={props.label} help={props.help} issues={props.issues}>
      {({ id, describedBy, invalid }) => (
        <input
          id={id}
          type="text"
          inputMode={props.integer ? "numeric" : "decimal"}
          className={inputClass}
          value={props.value === undefined ? "" : String(props.value)}
          placeholder={props.placeholder}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          onChange={(event) => {
            const raw = event.target.value;
            if (raw.trim() === "") return props.onChange(undefined);
            const number = Number(raw);
            props.onChange(Number.isFinite(number) ? number : raw);
          }}
        />
      )}
    </Field>
  );
}

export function SelectInput(props: {
  pointer: string;
  label: string;
  value: unknown;
  options: readonly { value: string; label: string }[];
  onChange(value: string | undefined): void;
  issues: readonly Issue[];
  help?: ReactNode;
  /** Label of the "not set" choice; without it a value is required. */
  unsetLabel?: string;
}) {
  return (
    <Field pointer={props.pointer} label={props.label} help={props.help} issues={props.issues}>
      {({ id, describedBy, invalid }) => (
        <select
          id={id}
          className={inputClass}
          value={typeof props.value === "string" ? props.value : ""}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          onChange={(event) => props.onChange(event.target.value === "" ? undefined : event.target.value)}
        >
          {props.unsetLabel !== undefined ? <option value="">{props.unsetLabel}</option> : null}
          {props.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** A comma-separated list of strings (tags, guardrail ids, fact types). */
export function ListInput(props: {
  pointer: string;
  label: string;
  value: unknown;
  onChange(value: string[] | undefined): void;
  issues: readonly Issue[];
  help?: ReactNode;
  placeholder?: string;
  /** Keep [] instead of removing the key (required lists). */
  keepEmpty?: boolean;
}) {
  const list = Array.isArray(props.value) ? props.value.map(String) : [];
  return (
    <Field pointer={props.pointer} label={props.label} help={props.help ?? "Comma-separated."} issues={props.issues}>
      {({ id, describedBy, invalid }) => (
        <input
          id={id}
          type="text"
          className={inputClass}
          defaultValue={list.join(", ")}
          key={list.join("\u0000")}
          placeholder={props.placeholder}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          onBlur={(event) => {
            const items = event.target.value.split(",").map((s) => s.trim()).filter(Boolean);
            props.onChange(items.length || props.keepEmpty ? items : undefined);
          }}
        />
      )}
    </Field>
  );
}

export function CheckboxInput(props: { pointer: string; label: string; checked: boolean; onChange(checked: boolean): void; help?: ReactNode; issues: readonly Issue[] }) {
  const id = fieldId(props.pointer);
  const own = issuesUnder(props.issues, props.pointer);
  return (
    <div className="space-y-1">
      <div className="flex items-center gap-2">
        <input id={id} type="checkbox" className="h-4 w-4 accent-indigo-600" checked={props.checked} onChange={(event) => props.onChange(event.target.checked)} aria-describedby={props.help ? `${id}-help` : undefined} />
        <label htmlFor={id} className="text-sm font-medium text-zinc-800 dark:text-zinc-200">
          {props.label}
        </label>
      </div>
      {props.help ? (
        <p id={`${id}-help`} className="text-xs text-zinc-600 dark:text-zinc-400">
          {props.help}
        </p>
      ) : null}
      <Problems issues={own} />
    </div>
  );
}

/** A titled section of the definition form, a landmark the problems list can point into. */
export function Section({ id, title, description, children, actions }: { id: string; title: string; description?: ReactNode; children: ReactNode; actions?: ReactNode }) {
  return (
    <section aria-labelledby={`${id}-title`} id={id} className="scroll-mt-20 rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-950">
      <div className="mb-3 flex items-start justify-between gap-4">
        <div>
          <h2 id={`${id}-title`} className="text-sm font-semibold text-zinc-900 dark:text-zinc-100">
            {title}
          </h2>
          {description ? <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">{description}</p> : null}
        </div>
        {actions}
      </div>
      <div className="space-y-3">{children}</div>
    </section>
  );
}
