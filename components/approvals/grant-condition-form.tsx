"use client";
import { Button, Input, Select } from "@/components/ui";
import { OPERATOR_LABELS, operatorsFor, type ConditionField, type ConditionRow, type RowIssue } from "@/lib/client/grant-condition";

/**
 * The optional conditions of a grant, one row each: a top-level field of the tool's input, an operator that fits its
 * type, and a value typed per its schema. `issues` (by row index) are shown beside their row once `showIssues`.
 */
export function GrantConditionRows({ idPrefix, fields, rows, onChange, issues, showIssues }: { idPrefix: string; fields: ConditionField[]; rows: ConditionRow[]; onChange(rows: ConditionRow[]): void; issues: RowIssue[]; showIssues: boolean }) {
  const update = (index: number, patch: Partial<ConditionRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  const add = () => {
    const field = fields[0];
    onChange([...rows, { field: field?.name ?? "", operator: field ? operatorsFor(field.kind)[0] : "equals", value: field?.kind === "boolean" ? "true" : "" }]);
  };
  if (!fields.length) return <p className="text-sm text-zinc-600 dark:text-zinc-400">This tool&apos;s input has no field a condition can name.</p>;
  return (
    <fieldset className="mt-3">
      <legend className="text-sm font-semibold">Only when (optional)</legend>
      {rows.length === 0 ? <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">No condition: every later call of the tool by this agent passes.</p> : null}
      <ul className="mt-2 flex flex-col gap-2" aria-label="Conditions">
        {rows.map((row, index) => {
          const field = fields.find((candidate) => candidate.name === row.field);
          const issue = showIssues ? issues.find((candidate) => candidate.row === index) : undefined;
          const id = `${idPrefix}-${index}`;
          const number = index + 1;
          const valueLabel = row.operator === "one-of" ? `Values of condition ${number}, separated by commas` : `Value of condition ${number}`;
          return (
            <li key={index} data-testid="condition-row">
              <div className="grid grid-cols-1 items-center gap-2 sm:grid-cols-[9rem_9rem_minmax(0,1fr)_auto]">
                <Select
                  aria-label={`Field of condition ${number}`}
                  value={row.field}
                  onChange={(event) => {
                    const next = fields.find((candidate) => candidate.name === event.target.value);
                    const operators = next ? operatorsFor(next.kind) : [];
                    update(index, { field: event.target.value, operator: operators.includes(row.operator) ? row.operator : (operators[0] ?? "equals"), value: next?.kind === "boolean" ? "true" : "" });
                  }}
                >
                  {fields.map((candidate) => (
                    <option key={candidate.name} value={candidate.name}>
                      {candidate.name}
                    </option>
                  ))}
                </Select>
                <Select aria-label={`Operator of condition ${number}`} value={row.operator} onChange={(event) => update(index, { operator: event.target.value as ConditionRow["operator"] })}>
                  {(field ? operatorsFor(field.kind) : []).map((operator) => (
                    <option key={operator} value={operator}>
                      {OPERATOR_LABELS[operator]}
                    </option>
                  ))}
                </Select>
                {field?.kind === "boolean" ? (
                  <Select aria-label={valueLabel} value={row.value} onChange={(event) => update(index, { value: event.target.value })} aria-invalid={issue ? true : undefined} aria-describedby={issue ? `${id}-issue` : undefined}>
                    <option value="true">true</option>
                    <option value="false">false</option>
                  </Select>
                ) : (
                  <Input
                    aria-label={valueLabel}
                    value={row.value}
                    onChange={(event) => update(index, { value: event.target.value })}
                    inputMode={field?.kind === "number" || field?.kind === "integer" ? "decimal" : undefined}
                    list={field?.options && row.operator !== "starts-with" ? `${id}-options` : undefined}
                    placeholder={field?.kind === "string" ? (row.operator === "one-of" ? "a, b, c" : "text") : "number"}
                    className="min-w-0"
                    aria-invalid={issue ? true : undefined}
                    aria-describedby={issue ? `${id}-issue` : undefined}
                  />
                )}
                {field?.options ? (
                  <datalist id={`${id}-options`}>
                    {field.options.map((option) => (
                      <option key={String(option)} value={String(option)} />
                    ))}
                  </datalist>
                ) : null}
                <Button size="sm" variant="ghost" onClick={() => onChange(rows.filter((_, i) => i !== index))} aria-label={`Remove condition ${number}`}>
                  Remove
                </Button>
              </div>
              {issue ? (
                <p id={`${id}-issue`} className="mt-1 text-sm text-red-700 dark:text-red-300">
                  {issue.message}
                </p>
              ) : null}
            </li>
          );
        })}
      </ul>
      <Button size="sm" className="mt-2" onClick={add}>
        Add a condition
      </Button>
    </fieldset>
  );
}
