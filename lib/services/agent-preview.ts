/**
 * Live previews of an agent definition being edited (not registered yet): its rendered instructions and the
 * parameter form it generates. Stateless — nothing is read from or written to the registry — and the same
 * template checks, parameter checks and render a turn uses.
 */
import { describeParameterForm, type ParameterForm } from "@/lib/agents/form";
import { InstructionsError, inspectInstructions, renderInstructions, type TemplateIssue } from "@/lib/agents/instructions";
import { checkParameters } from "@/lib/agents/parameters";
import type { PromptParameter } from "@/lib/agents/validate-agent";
import { AppError, type Issue } from "@/lib/errors";

/** The fields of a draft a preview reads (the request schema has checked their shapes). */
type DraftDefinition = { id?: string; name?: string; version?: string; instructions?: string; parameters?: PromptParameter[] };

/** A problem in the instructions, at `/definition/instructions`, with its position. */
export type TemplateProblem = Issue & { line: number; column: number };

const INSTRUCTIONS_PATH = "/definition/instructions";

function templateProblem({ message, line, column }: TemplateIssue): TemplateProblem {
  return { path: INSTRUCTIONS_PATH, message: `line ${line}, column ${column}: ${message}`, line, column };
}

function fail(issues: Issue[]): never {
  const [first] = issues;
  throw new AppError("validation-failed", `cannot render: ${issues.length} problem(s), first: ${first.path} ${first.message}`, { issues });
}

/**
 * POST /v1/agents/render: checks the template (syntax, filters, each variable declared or an auto-var), then the
 * sample parameters, then renders. Template problems come first and alone (parameters cannot be judged against a
 * template that does not parse); each is at `/definition/instructions` with `line` and `column`.
 */
export function renderAgentDraft(body: Record<string, unknown>): { rendered: string; parameters: Record<string, unknown> } {
  const definition = body.definition as DraftDefinition;
  const declared = definition.parameters ?? [];
  const template = definition.instructions ?? "";
  const inspection = inspectInstructions(template, declared.map((p) => p.name));
  if (inspection.issues.length) fail(inspection.issues.map(templateProblem));
  const checked = checkParameters(declared, body.parameters);
  if (!checked.ok) fail(checked.issues);
  const conversation = body.conversation as { id?: string | null; turn?: number } | undefined;
  try {
    const rendered = renderInstructions(template, {
      parameters: checked.values,
      agent: { id: definition.id ?? "", name: definition.name ?? "", version: definition.version ?? "" },
      conversation: { id: conversation?.id ?? null, turn: conversation?.turn ?? 1 },
      now: new Date(),
    });
    return { rendered, parameters: checked.values };
  } catch (err) {
    if (!(err instanceof InstructionsError)) throw err;
    fail([templateProblem({ message: err.reason, line: err.line, column: err.column })]);
  }
}

/** POST /v1/agents/form: the form the draft's parameters describe, as `GET …/versions/{version}/form` answers it. */
export function describeAgentDraftForm(body: Record<string, unknown>): ParameterForm {
  return describeParameterForm(body.definition as DraftDefinition);
}
