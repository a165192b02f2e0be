"use client";

/**
 * A CodeMirror 6 editor for Liquid templates (agent instructions) and JSON (raw definitions, schemas).
 * Controlled: `value` in, `onChange` out. Problems given as `markers` (1-based line and column) are
 * underlined in the text and listed in the gutter. Keyboard: Tab indents; Escape then Tab moves focus on
 * (CodeMirror's tab-focus mode), so the editor never traps the keyboard. Mod-S calls `onSave` when given
 * (otherwise the key is left to the page's own save shortcut).
 */
import { useEffect, useRef } from "react";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { json } from "@codemirror/lang-json";
import { liquid } from "@codemirror/lang-liquid";
import { HighlightStyle, bracketMatching, defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { lintGutter, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { Compartment, EditorState, type Text } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, placeholder as placeholderExtension } from "@codemirror/view";

/** A problem to mark, at a 1-based line and column of the text. */
export type CodeMarker = { line: number; column: number; message: string; severity?: "error" | "warning" };

export type CodeEditorProps = {
  value: string;
  onChange(value: string): void;
  language: "liquid" | "json";
  /** Accessible name of the text area (required: the editor has no visible <label> of its own). */
  ariaLabel: string;
  /** Id of the element describing the editor (help text, problems). */
  ariaDescribedBy?: string;
  id?: string;
  markers?: CodeMarker[];
  onSave?(): void;
  readOnly?: boolean;
  placeholder?: string;
  /** CSS min-height of the editing area, e.g. "10rem". */
  minHeight?: string;
};

/** Document offset of a 1-based line and column, clamped to the document. */
export function markerRange(doc: Text, marker: Pick<CodeMarker, "line" | "column">): { from: number; to: number } {
  const line = doc.line(Math.min(Math.max(1, marker.line), doc.lines));
  const from = Math.min(line.from + Math.max(0, marker.column - 1), line.to);
  // Underline the word (or tag) that starts at the position, at least one character.
  const rest = doc.sliceString(from, line.to);
  const word = /^(\{[{%]-?|[^\s{}%]+)/.exec(rest);
  const to = from + Math.max(1, word ? word[0].length : 1);
  return { from: Math.min(from, doc.length), to: Math.min(to, Math.max(line.to, from + 1), doc.length) };
}

/** Liquid delimiters, tags and variables in the accent colour (the default style leaves most of them plain). */
const templateHighlight = HighlightStyle.define([
  { tag: [tags.brace, tags.processingInstruction], color: "#4f46e5", fontWeight: "600" },
  { tag: [tags.keyword, tags.controlKeyword, tags.definitionKeyword], color: "#7c3aed" },
  { tag: [tags.variableName, tags.propertyName], color: "#0369a1" },
  { tag: [tags.function(tags.variableName), tags.operator], color: "#b45309" },
  { tag: [tags.string, tags.number, tags.bool], color: "#15803d" },
]);

const theme = EditorView.theme({
  "&": { fontSize: "13px", border: "1px solid var(--color-border, #d4d4d8)", borderRadius: "6px", backgroundColor: "var(--color-surface, transparent)" },
  "&.cm-focused": { outline: "2px solid var(--color-accent, #6366f1)", outlineOffset: "1px" },
  ".cm-content": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace", padding: "6px 0" },
  ".cm-gutters": { backgroundColor: "transparent", borderRight: "1px solid var(--color-border, #e4e4e7)", color: "#71717a" },
  ".cm-lint-marker": { width: "0.9em", height: "0.9em" },
  // CodeMirror's own placeholder grey is too faint to read (contrast 3.5:1); zinc-500 reads at 4.8:1 on white.
  ".cm-placeholder": { color: "#71717a" },
});

export function CodeEditor(props: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const attributes = useRef(new Compartment());
  const editable = useRef(new Compartment());

  useEffect(() => {
    if (!host.current) return;
    const state = EditorState.create({
      doc: latest.current.value,
      extensions: [
        lineNumbers(),
        history(),
        bracketMatching(),
        syntaxHighlighting(templateHighlight),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        latest.current.language === "liquid" ? liquid() : json(),
        lintGutter(),
        EditorView.lineWrapping,
        keymap.of([
          { key: "Mod-s", run: () => (latest.current.onSave ? (latest.current.onSave(), true) : false) },
          indentWithTab,
          ...defaultKeymap,
          ...historyKeymap,
        ]),
        attributes.current.of(contentAttributes(latest.current)),
        editable.current.of(EditorState.readOnly.of(Boolean(latest.current.readOnly))),
        latest.current.placeholder ? placeholderExtension(latest.current.placeholder) : [],
        EditorView.theme({ ".cm-content, .cm-gutter": { minHeight: latest.current.minHeight ?? "8rem" } }),
        theme,
        EditorView.updateListener.of((update) => {
          if (update.docChanged) latest.current.onChange(update.state.doc.toString());
        }),
      ],
    });
    const created = new EditorView({ state, parent: host.current });
    view.current = created;
    return () => {
      created.destroy();
      view.current = null;
    };
    // The language is fixed for an editor's life; everything else is reconfigured below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.language]);

  // Outside changes of the value (raw JSON edited, a version loaded) replace the text.
  useEffect(() => {
    const current = view.current;
    if (!current || current.state.doc.toString() === props.value) return;
    current.dispatch({ changes: { from: 0, to: current.state.doc.length, insert: props.value } });
  }, [props.value]);

  useEffect(() => {
    view.current?.dispatch({
      effects: [attributes.current.reconfigure(contentAttributes(props)), editable.current.reconfigure(EditorState.readOnly.of(Boolean(props.readOnly)))],
    });
  }, [props.ariaLabel, props.ariaDescribedBy, props.readOnly, props.markers?.length]);

  useEffect(() => {
    const current = view.current;
    if (!current) return;
    const diagnostics: Diagnostic[] = (props.markers ?? []).map((marker) => ({
      ...markerRange(current.state.doc, marker),
      severity: marker.severity ?? "error",
      message: marker.message,
    }));
    current.dispatch(setDiagnostics(current.state, diagnostics));
  }, [props.markers, props.value]);

  return <div ref={host} id={props.id} data-language={props.language} className="code-editor" />;
}

function contentAttributes(props: CodeEditorProps) {
  const attrs: Record<string, string> = { "aria-label": props.ariaLabel, "aria-multiline": "true" };
  if (props.ariaDescribedBy) attrs["aria-describedby"] = props.ariaDescribedBy;
  if (props.markers?.some((m) => (m.severity ?? "error") === "error")) attrs["aria-invalid"] = "true";
  return EditorView.contentAttributes.of(attrs);
}
