/**
 * Agent instructions: LiquidJS templates rendered with strict variables and strict filters.
 *
 * One shared engine; parsed templates are cached by source text (bounded LRU). File-based tags
 * (`include`, `render`, `layout`) are refused: instructions are self-contained and must never
 * read the server's file system.
 */
import { Liquid, LiquidError, type Template, type Variable } from "liquidjs";

/** A problem in an instructions template, at a 1-based line and column. */
export type TemplateIssue = { message: string; line: number; column: number };

/** What the instructions are rendered with; auto-vars are derived from it. */
export type RenderContext = {
  parameters: Record<string, unknown>;
  agent: { id: string; name: string; version: string };
  conversation: { id: string | null; turn: number };
  now: Date;
};

/** A parse or render failure of an instructions template, with its position. */
export class InstructionsError extends Error {
  readonly line: number;
  readonly column: number;
  /** The problem without its position. */
  readonly reason: string;

  constructor(reason: string, line: number, column: number) {
    super(`line ${line}, column ${column}: ${reason}`);
    this.name = "InstructionsError";
    this.reason = reason;
    this.line = line;
    this.column = column;
  }
}

/** Auto-vars available to every template: a root with no fields, or a root and its allowed fields. */
const AUTO_VARS: Record<string, readonly string[] | null> = {
  today: null,
  now: null,
  agent: ["id", "name", "version"],
  conversation: ["id", "turn"],
};

/** Human list of the auto-vars, for messages. */
const AUTO_VAR_LIST = "today, now, agent.id, agent.name, agent.version, conversation.id, conversation.turn";

const FILE_TAGS = ["include", "render", "layout"] as const;
/** The longest template Liquid parses (characters). */
const PARSE_LIMIT = 1_000_000;
const CACHE_SIZE = 500;

const engine = createEngine();
const parsed = new Map<string, Template[]>();

function createEngine(): Liquid {
  const liquid = new Liquid({
    strictVariables: true,
    strictFilters: true,
    ownPropertyOnly: true,
    templates: {},
    timezoneOffset: 0,
    parseLimit: PARSE_LIMIT,
    renderLimit: 2_000,
    memoryLimit: 10_000_000,
  });
  for (const tag of FILE_TAGS) {
    liquid.registerTag(tag, {
      parse() {
        throw new Error(`{% ${tag} %} is not supported in instructions`);
      },
      render() {
        return "";
      },
    });
  }
  return liquid;
}

/** Liquid's message in our words, without the ", line:L, col:C" it appends (the position is reported separately). */
function liquidReason(message: string): string {
  return message
    .replace(/, line:\d+, col:\d+$/, "")
    .replace(/^undefined filter: (.+)$/, 'unknown filter "$1"')
    .replace(/^undefined variable: (.+)$/, 'variable "$1" has no value');
}

function toInstructionsError(err: unknown): InstructionsError {
  if (err instanceof InstructionsError) return err;
  if (err instanceof LiquidError) {
    const [line, column] = err.token.getPosition();
    return new InstructionsError(liquidReason(err.originalError?.message ?? err.message), line, column);
  }
  // A limit Liquid checks before it has a position (the parse length limit) fails as a plain AssertionError.
  if (err instanceof Error && err.name === "AssertionError") return new InstructionsError(liquidReason(err.message), 1, 1);
  throw err;
}

/** Parse `template` (cached, LRU); throws InstructionsError on a syntax error or an unknown filter. */
function parse(template: string): Template[] {
  const hit = parsed.get(template);
  if (hit) {
    parsed.delete(template);
    parsed.set(template, hit);
    return hit;
  }
  let result: Template[];
  try {
    result = engine.parse(template);
  } catch (err) {
    throw toInstructionsError(err);
  }
  parsed.set(template, result);
  if (parsed.size > CACHE_SIZE) parsed.delete(parsed.keys().next().value as string);
  return result;
}

/** Why a reference to a global variable is not allowed, or null when it is. */
function referenceProblem(variable: Variable, declared: ReadonlySet<string>): string | null {
  const [root, field] = variable.segments;
  if (typeof root !== "string") return `dynamic variable names are not supported ("${variable}")`;
  if (root in AUTO_VARS) return autoVarProblem(root, field);
  if (declared.has(root)) return null;
  return `unknown variable "${root}": declare it as a parameter or use an auto-var (${AUTO_VAR_LIST})`;
}

function autoVarProblem(root: string, field: Variable["segments"][number] | undefined): string | null {
  const fields = AUTO_VARS[root];
  if (!fields) return null;
  const allowed = fields.map((f) => `${root}.${f}`).join(", ").replace(/, ([^,]+)$/, " or $1");
  if (field === undefined) return `"${root}" cannot be used as a value; use ${allowed}`;
  if (typeof field === "string" && fields.includes(field)) return null;
  return `unknown auto-var "${root}.${String(field)}"; use ${allowed}`;
}

/** The result of inspecting a template: its problems and the declared parameters it uses. */
export type InstructionsInspection = { issues: TemplateIssue[]; referencedParameters: string[] };

/**
 * Parse `template` and check every variable it reads from the outside: each must be a declared
 * parameter or an auto-var. Loop variables and `assign`/`capture`/`increment` locals are not references.
 */
export function inspectInstructions(template: string, declaredParams: readonly string[]): InstructionsInspection {
  let templates: Template[];
  try {
    templates = parse(template);
  } catch (err) {
    const { reason, line, column } = toInstructionsError(err);
    return { issues: [{ message: reason, line, column }], referencedParameters: [] };
  }
  const declared = new Set(declaredParams);
  const issues: TemplateIssue[] = [];
  const referenced = new Set<string>();
  const globals = engine.analyzeSync(templates, { partials: false }).globals;
  for (const variables of Object.values(globals)) {
    for (const variable of variables) {
      const problem = referenceProblem(variable, declared);
      if (problem) issues.push({ message: problem, line: variable.location.row, column: variable.location.col });
      else if (declared.has(String(variable.segments[0]))) referenced.add(String(variable.segments[0]));
    }
  }
  issues.sort((a, b) => a.line - b.line || a.column - b.column);
  return { issues, referencedParameters: [...referenced] };
}

/**
 * Check an instructions template: syntax, filters (strict) and variable references.
 * Returns every problem found, with its 1-based line and column; empty when the template is fine.
 */
export function analyzeInstructions(template: string, declaredParams: readonly string[]): TemplateIssue[] {
  return inspectInstructions(template, declaredParams).issues;
}

/** YYYY-MM-DD of `date` in UTC. */
function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * Render `template` with strict variables. Parameters are top-level variables; the auto-vars
 * `today` (YYYY-MM-DD, UTC), `now` (ISO 8601), `agent.*` and `conversation.*` take precedence.
 * Throws InstructionsError (with line and column) on any parse or render failure.
 */
export function renderInstructions(template: string, context: RenderContext): string {
  // Text with no output or tag opener is its own rendering: Liquid would copy it as it is.
  if (template.length <= PARSE_LIMIT && !template.includes("{{") && !template.includes("{%")) return template;
  const templates = parse(template);
  const { id, name, version } = context.agent;
  const scope = {
    ...context.parameters,
    today: utcDay(context.now),
    now: context.now.toISOString(),
    agent: { id, name, version },
    conversation: { id: context.conversation.id, turn: context.conversation.turn },
  };
  try {
    return engine.renderSync(templates, scope) as string;
  } catch (err) {
    throw toInstructionsError(err);
  }
}
