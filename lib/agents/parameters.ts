/**
 * Prompt parameters: type checks of values, the invoke-time check of supplied parameters,
 * and the render preview shared by the API and the kernel.
 */
import { InstructionsError, renderInstructions, type RenderContext } from "./instructions";
import type { AgentDefinition, Issue, ParameterType, PromptParameter } from "./validate-agent";

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** RFC 3339 date-time: the date part is captured for the calendar check; a time zone is required. */
const DATE_TIME_RE =
  /^(\d{4}-\d{2}-\d{2})T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/i;

/** Whether `value` is a real calendar date written YYYY-MM-DD. */
function isCalendarDate(value: string): boolean {
  const match = DATE_RE.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Whether `value` is a date (YYYY-MM-DD) or an ISO 8601 date-time with a time zone (Z or ±hh:mm). */
export function isDateValue(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const dateTime = DATE_TIME_RE.exec(value);
  return isCalendarDate(dateTime ? dateTime[1] : value);
}

const TYPE_CHECKS: Record<ParameterType, { test: (value: unknown) => boolean; message: string }> = {
  string: { test: (v) => typeof v === "string", message: "must be a string" },
  number: { test: (v) => typeof v === "number" && Number.isFinite(v), message: "must be a finite number" },
  boolean: { test: (v) => typeof v === "boolean", message: "must be a boolean (true or false)" },
  date: { test: isDateValue, message: "must be a date (YYYY-MM-DD)" },
};

/** Why `value` does not fit a parameter of `type`, or null when it does. */
export function parameterValueProblem(type: ParameterType, value: unknown): string | null {
  const check = TYPE_CHECKS[type];
  return check.test(value) ? null : check.message;
}

/** JSON pointer to a supplied parameter. */
function pointer(name: string): string {
  return `/parameters/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value a declared parameter takes, or an issue. An omitted optional parameter without default is null. */
function resolveParameter(param: PromptParameter, given: Record<string, unknown>): { value: unknown } | Issue {
  const supplied = Object.hasOwn(given, param.name) ? given[param.name] : undefined;
  if (supplied === undefined || supplied === null) {
    if (param.default !== undefined) return { value: param.default };
    if (param.required === false) return { value: null };
    return { path: pointer(param.name), message: "missing required parameter" };
  }
  const problem = parameterValueProblem(param.type, supplied);
  return problem ? { path: pointer(param.name), message: problem } : { value: supplied };
}

/**
 * Check the parameters supplied at invoke time against the declared ones: `given` must be an object
 * (undefined counts as {}); every required parameter (required defaults to true) must be supplied unless
 * it has a default; values must fit their type; undeclared names are refused. null counts as omitted.
 * On success `values` holds every declared parameter: the supplied value, else its default, else null.
 * Every problem is reported.
 */
export function checkParameters(
  declared: readonly PromptParameter[],
  given: unknown,
): { ok: true; values: Record<string, unknown> } | { ok: false; issues: Issue[] } {
  const supplied = given === undefined ? {} : given;
  if (!isRecord(supplied)) return { ok: false, issues: [{ path: "/parameters", message: "must be an object" }] };
  const issues: Issue[] = [];
  const values: Record<string, unknown> = {};
  for (const param of declared) {
    const result = resolveParameter(param, supplied);
    if ("value" in result) values[param.name] = result.value;
    else issues.push(result);
  }
  const names = new Set(declared.map((p) => p.name));
  const declaredList = declared.length ? declared.map((p) => p.name).join(", ") : "none";
  for (const name of Object.keys(supplied)) {
    if (names.has(name)) continue;
    issues.push({ path: pointer(name), message: `unknown parameter "${name}" (declared: ${declaredList})` });
  }
  return issues.length ? { ok: false, issues } : { ok: true, values };
}

/** What a preview or a turn renders with besides the parameters; defaults: no conversation, turn 1, now. */
export type PreviewContext = { conversation?: RenderContext["conversation"]; now?: Date };

/** The definition fields a render needs. */
export type RenderableDefinition = Pick<
  AgentDefinition,
  "id" | "name" | "version" | "instructions" | "parameters"
>;

/**
 * Check `parameters` against the definition, then render its instructions with them.
 * The one render path of the API preview and the kernel: parameter problems are reported at
 * /parameters/<name>, template problems at /instructions with line and column.
 */
export function renderPreview(
  definition: RenderableDefinition,
  parameters: unknown,
  ctx: PreviewContext = {},
): { ok: true; rendered: string; parameters: Record<string, unknown> } | { ok: false; issues: Issue[] } {
  const checked = checkParameters(definition.parameters ?? [], parameters);
  if (!checked.ok) return checked;
  try {
    const rendered = renderInstructions(definition.instructions, {
      parameters: checked.values,
      agent: { id: definition.id, name: definition.name, version: definition.version },
      conversation: ctx.conversation ?? { id: null, turn: 1 },
      now: ctx.now ?? new Date(),
    });
    return { ok: true, rendered, parameters: checked.values };
  } catch (err) {
    if (!(err instanceof InstructionsError)) throw err;
    return { ok: false, issues: [{ path: "/instructions", message: err.message }] };
  }
}
