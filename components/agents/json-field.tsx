"use client";

/**
 * A JSON value edited as text in the code editor (capabilities, the output schema, the raw definition).
 * The value changes only when the text parses; a syntax error is marked at its line and column.
 */
import { useEffect, useState } from "react";
import { CodeEditor, type CodeMarker } from "@/components/forms/code-editor";

/** The line and column of a JSON.parse error in `text`, or null when it parses. */
export function jsonProblem(text: string): CodeMarker | null {
  try {
    JSON.parse(text);
    return null;
  } catch (err) {
    const message = (err as Error).message;
    const lineCol = /line (\d+) column (\d+)/.exec(message);
    if (lineCol) return { line: Number(lineCol[1]), column: Number(lineCol[2]), message };
    const position = /position (\d+)/.exec(message);
    const offset = position ? Number(position[1]) : text.length;
    const before = text.slice(0, offset).split("\n");
    return { line: before.length, column: before[before.length - 1].length + 1, message };
  }
}

type Props = {
  id: string;
  label: string;
  value: unknown;
  onChange(value: unknown): void;
  describedBy?: string;
  minHeight?: string;
  onSave?(): void;
  /** More markers (server problems) to show besides the syntax error. */
  markers?: CodeMarker[];
};

const same = (text: string, value: unknown) => {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
};

export function JsonField({ id, label, value, onChange, describedBy, minHeight = "6rem", onSave, markers = [] }: Props) {
  const [text, setText] = useState(() => JSON.stringify(value, null, 2) ?? "");
  // A change from outside (the form, a loaded version) rewrites the text unless it already says the same.
  useEffect(() => {
    setText((current) => (same(current, value) ? current : (JSON.stringify(value, null, 2) ?? "")));
  }, [value]);
  const problem = jsonProblem(text);
  return (
    <div id={id}>
      <CodeEditor
        language="json"
        ariaLabel={label}
        ariaDescribedBy={describedBy}
        value={text}
        minHeight={minHeight}
        onSave={onSave}
        markers={problem ? [problem, ...markers] : markers}
        onChange={(next) => {
          setText(next);
          if (!jsonProblem(next)) onChange(JSON.parse(next));
        }}
      />
      {problem ? (
        <p className="mt-1 text-xs text-red-700 dark:text-red-400" role="status">
          Not valid JSON (line {problem.line}, column {problem.column}): the last valid value is kept.
        </p>
      ) : null}
    </div>
  );
}
