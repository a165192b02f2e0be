/**
 * The configuration form of an agent, described from its declared parameters: what a UI needs to
 * render one input per parameter and send back values that pass `checkParameters`.
 */
import type { AgentDefinition, ParameterType } from "./validate-agent";

/** The input control for a parameter. */
export type FieldKind = "text" | "number" | "checkbox" | "date";

/** One form field, for one declared parameter. */
export type FormField = {
  /** Parameter name: the key to send the value under. */
  name: string;
  /** The name made readable: "maxResults" → "Max results". */
  label: string;
  kind: FieldKind;
  type: ParameterType;
  /** As declared (default true). A required parameter with a default is satisfied by its default. */
  required: boolean;
  /** Value to prefill; the server applies it when the parameter is omitted. */
  default?: unknown;
  description?: string;
  /** HTML `inputmode` hint for virtual keyboards. */
  inputMode?: "text" | "decimal";
  /** Example of the expected format. */
  placeholder?: string;
};

/** A form description: fields in declaration order. */
export type ParameterForm = { fields: FormField[] };

const KINDS: Record<ParameterType, Pick<FormField, "kind" | "inputMode" | "placeholder">> = {
  string: { kind: "text", inputMode: "text" },
  number: { kind: "number", inputMode: "decimal" },
  boolean: { kind: "checkbox" },
  date: { kind: "date", placeholder: "YYYY-MM-DD" },
};

/** "maxResults", "max_results" or "max-results" → "Max results". */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[\s_-]+/)
    .filter(Boolean);
  const text = words.map((w, i) => (i === 0 || /^[A-Z0-9]+$/.test(w) ? w : w.toLowerCase())).join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Describe the form that collects an agent's parameters: one field per declared parameter,
 * with its control kind, label, requirement and default.
 */
export function describeParameterForm(definition: Pick<AgentDefinition, "parameters">): ParameterForm {
  const fields = (definition.parameters ?? []).map((param): FormField => {
    const field: FormField = {
      name: param.name,
      label: humanize(param.name),
      type: param.type,
      ...KINDS[param.type],
      required: param.required ?? true,
    };
    if (param.default !== undefined) field.default = param.default;
    if (param.description !== undefined) field.description = param.description;
    return field;
  });
  return { fields };
}
