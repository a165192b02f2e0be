/**
 * Evaluation of guardrails on a turn's final answer. Deterministic: the same guardrails and answer give the same
 * findings, in the order the guardrails are given (save that evaluateGuardrailsSafely fails closed on a regex check
 * that runs out of time). A finding's message never quotes the answer (the answer of a halted turn is stored
 * nowhere): it names configuration (a denied term, a limit) and describes the problem.
 */
import { Worker } from "node:worker_threads";
import type { ValidateFunction } from "ajv";
import { comparableTerm, type GuardrailCheck, type GuardrailDefinition, type RegexCheck } from "@/lib/guardrails/definition";
import { compileDialectSchema } from "@/lib/tools/json-schema";

/** A guardrail version resolved for a run (see resolveGuardrails in lib/services/guardrails.ts). */
export type ResolvedGuardrail = { id: string; version: string; definition: GuardrailDefinition };

export type GuardrailFinding = {
  guardrailId: string;
  version: string;
  action: "halt" | "flag";
  check: "regex" | "deny-terms" | "max-length" | "json-schema";
  message: string;
};

/** A compiled check: the problem with the answer in words, or null when the answer passes. */
type CompiledCheck = (answer: string) => string | null;

/** A letter, digit or combining mark: what must not touch a whole-word term on either side. */
const WORD_CHARACTER = "[\\p{L}\\p{N}\\p{M}]";
/** JSON Schema problems listed in one finding; more are counted, not listed. */
const MAX_LISTED_SCHEMA_PROBLEMS = 10;
const CACHE_SIZE = 256;
/** How long one regex check may run in the worker before it counts as a violation. */
const REGEX_TIMEOUT_MS = 1000;

/**
 * Compiled checks by guardrail id, version and check. Ids and versions are unique per tenant only, so the check
 * itself is part of the key: two tenants' `acme.x@1.0.0` never share a compiled check unless their checks are equal.
 */
const cache = new Map<string, CompiledCheck>();

/**
 * Runs each guardrail on `answer`, in the order given, and returns a finding for each one that fires. Throws only
 * for a definition that validateGuardrailDefinition would refuse (a regex or schema that does not compile).
 * Regex checks run synchronously on the caller's thread, and registration does not refuse patterns prone to
 * catastrophic backtracking: where the thread must not stall (the server), use evaluateGuardrailsSafely.
 */
export function evaluateGuardrails(guardrails: readonly ResolvedGuardrail[], answer: string): GuardrailFinding[] {
  return findingsOf(guardrails, guardrails.map((guardrail) => compiledCheck(guardrail)(answer)));
}

/**
 * evaluateGuardrails for the server: the same findings in the same order, but every regex check runs in a worker
 * thread with a time limit (`regexTimeoutMs`, default 1000 ms), so a pattern that backtracks catastrophically on the
 * answer cannot stall the process. A check that runs out of time counts as a violation (fail closed): a finding with
 * the guardrail's action and check "regex". Other checks run on the caller's thread. Rejects only where
 * evaluateGuardrails throws (a definition validateGuardrailDefinition would refuse).
 */
export async function evaluateGuardrailsSafely(
  guardrails: readonly ResolvedGuardrail[],
  answer: string,
  options: { regexTimeoutMs?: number } = {},
): Promise<GuardrailFinding[]> {
  const timeoutMs = options.regexTimeoutMs ?? REGEX_TIMEOUT_MS;
  const problems = await Promise.all(
    guardrails.map(async (guardrail) => {
      const { check } = guardrail.definition;
      if (check.kind !== "regex") return compiledCheck(guardrail)(answer);
      const test = regexTest(check);
      const outcome = await runRegexInWorker(test, answer, timeoutMs);
      return outcome === "timeout" ? `the pattern did not finish within ${timeoutMs} ms on the answer; treated as a violation` : regexProblem(test.match, outcome === "match");
    }),
  );
  return findingsOf(guardrails, problems);
}

/** A finding for each guardrail whose check found a problem (`problems[i]` belongs to `guardrails[i]`). */
function findingsOf(guardrails: readonly ResolvedGuardrail[], problems: ReadonlyArray<string | null>): GuardrailFinding[] {
  const findings: GuardrailFinding[] = [];
  guardrails.forEach(({ id, version, definition }, index) => {
    const problem = problems[index];
    if (problem === null) return;
    findings.push({
      guardrailId: id,
      version,
      action: definition.action,
      check: definition.check.kind,
      message: definition.message ? `${definition.message} (${problem})` : problem,
    });
  });
  return findings;
}

function compiledCheck(guardrail: ResolvedGuardrail): CompiledCheck {
  const key = `${guardrail.id}\u0000${guardrail.version}\u0000${JSON.stringify(guardrail.definition.check)}`;
  let compiled = cache.get(key);
  if (compiled) {
    cache.delete(key); // most recently used last: the first key is the one to evict
  } else {
    compiled = compileCheck(guardrail.definition.check);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  }
  cache.set(key, compiled);
  return compiled;
}

function compileCheck(check: GuardrailCheck): CompiledCheck {
  switch (check.kind) {
    case "regex":
      return compileRegex(regexTest(check));
    case "deny-terms":
      return compileDenyTerms(check.terms, check.caseSensitive ?? false, check.wholeWord ?? true);
    case "max-length":
      return compileMaxLength(check.maxLength);
    case "json-schema":
      return compileJsonSchema(check.schema);
  }
}

/**
 * What a regex check runs, for both paths (on the caller's thread and in the worker): the RegExp's source and flags,
 * and whether a match is the violation or its absence is. Always `u`; never `g` or `y`, so test() keeps no state
 * between answers.
 */
type RegexTest = { source: string; flags: string; match: "forbid" | "require" };

function regexTest(check: RegexCheck): RegexTest {
  return { source: check.pattern, flags: `u${check.flags ?? ""}`, match: check.match ?? "forbid" };
}

function regexProblem(match: RegexTest["match"], matched: boolean): string | null {
  if (match === "forbid") return matched ? "the answer matches the forbidden pattern" : null;
  return matched ? null : "the answer does not match the required pattern";
}

function compileRegex(test: RegexTest): CompiledCheck {
  const regex = new RegExp(test.source, test.flags);
  return (answer) => regexProblem(test.match, regex.test(answer));
}

/**
 * The regex worker's code, passed with `eval: true` so that no separate file has to be bundled, and run without the
 * process's `execArgv` (a loader or `--input-type=module` would make it other than a CommonJS script). It answers
 * each request with whether the answer matches, or with the error (structured-cloned) that constructing or running
 * the RegExp threw, exactly as compileRegex would.
 */
const REGEX_WORKER_CODE = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", ({ id, source, flags, answer }) => {
  let reply;
  try {
    reply = { id, matched: new RegExp(source, flags).test(answer) };
  } catch (error) {
    reply = { id, error };
  }
  parentPort.postMessage(reply);
});
`;

type RegexOutcome = "match" | "no-match" | "timeout";
type RegexJob = { id: number; test: RegexTest; answer: string; timeoutMs: number; resolve: (outcome: RegexOutcome) => void; reject: (error: unknown) => void };
type RegexReply = { id: number; matched: boolean } | { id: number; error: unknown };
/** The process's regex worker: it runs one job at a time, so a job's time limit counts only its own run. */
type RegexWorker = { worker: Worker; online: boolean; job?: RegexJob; timer?: NodeJS.Timeout };

/** Jobs waiting for the worker, first come first served (concurrent evaluations share the worker). */
const regexQueue: RegexJob[] = [];
let regexWorker: RegexWorker | undefined;
let lastRegexJobId = 0;

function runRegexInWorker(test: RegexTest, answer: string, timeoutMs: number): Promise<RegexOutcome> {
  return new Promise((resolve, reject) => {
    regexQueue.push({ id: ++lastRegexJobId, test, answer, timeoutMs, resolve, reject });
    pumpRegexQueue();
  });
}

/**
 * Starts the next waiting job when the worker is idle, starting the worker first if there is none. The worker keeps
 * the process alive only while it has work: an idle worker is unref'd.
 */
function pumpRegexQueue(): void {
  if (!regexWorker && regexQueue.length === 0) return;
  const state = (regexWorker ??= startRegexWorker());
  if (state.online && !state.job && regexQueue.length > 0) {
    const job = regexQueue.shift() as RegexJob;
    state.job = job;
    state.timer = setTimeout(() => timeOut(state), job.timeoutMs);
    state.worker.postMessage({ id: job.id, source: job.test.source, flags: job.test.flags, answer: job.answer });
  }
  if (state.job || regexQueue.length > 0) state.worker.ref();
  else state.worker.unref();
}

function startRegexWorker(): RegexWorker {
  const state: RegexWorker = { worker: new Worker(REGEX_WORKER_CODE, { eval: true, execArgv: [] }), online: false };
  state.worker.unref();
  state.worker.on("online", () => {
    state.online = true;
    pumpRegexQueue();
  });
  state.worker.on("message", (reply: RegexReply) => {
    const job = state.job;
    if (state !== regexWorker || !job || reply.id !== job.id) return;
    finishJob(state);
    if ("error" in reply) job.reject(reply.error);
    else job.resolve(reply.matched ? "match" : "no-match");
    pumpRegexQueue();
  });
  // An error that is not a job's (the worker itself failed) fails its job, or every waiting job if it never started.
  state.worker.on("error", (error) => stopRegexWorker(state, error));
  state.worker.on("exit", (code) => stopRegexWorker(state, new Error(`the guardrail regex worker exited with code ${code}`)));
  return state;
}

/** The running job took too long: it counts as a violation, and the worker, stuck in it, is replaced. */
function timeOut(state: RegexWorker): void {
  const job = state.job;
  if (state !== regexWorker || !job) return;
  finishJob(state);
  void state.worker.terminate();
  job.resolve("timeout");
  // The replacement starts now, so that the next evaluation does not wait for a worker to start.
  regexWorker = startRegexWorker();
  pumpRegexQueue();
}

function stopRegexWorker(state: RegexWorker, error: unknown): void {
  if (state !== regexWorker) return; // replaced already (a timeout terminates the worker it replaces)
  regexWorker = undefined;
  const job = state.job;
  finishJob(state);
  if (job) job.reject(error);
  else if (!state.online) for (const waiting of regexQueue.splice(0)) waiting.reject(error);
  pumpRegexQueue();
}

function finishJob(state: RegexWorker): void {
  clearTimeout(state.timer);
  state.job = undefined;
  state.timer = undefined;
}

/** Escapes the characters that are syntax in a `u`-mode RegExp (other escapes are errors in that mode). */
function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

function compileDenyTerms(terms: readonly string[], caseSensitive: boolean, wholeWord: boolean): CompiledCheck {
  const matchers = terms.map((term) => {
    const needle = comparableTerm(term, caseSensitive);
    if (!wholeWord) return { term, matches: (text: string) => text.includes(needle) };
    const regex = new RegExp(`(?<!${WORD_CHARACTER})${escapeRegExp(needle)}(?!${WORD_CHARACTER})`, "u");
    return { term, matches: (text: string) => regex.test(text) };
  });
  return (answer) => {
    const text = comparableTerm(answer, caseSensitive);
    const found = matchers.filter((matcher) => matcher.matches(text)).map((matcher) => JSON.stringify(matcher.term));
    if (found.length === 0) return null;
    return found.length === 1 ? `the answer contains the denied term ${found[0]}` : `the answer contains the denied terms ${found.join(", ")}`;
  };
}

function compileMaxLength(maxLength: number): CompiledCheck {
  return (answer) => {
    // A string has at most as many code points as UTF-16 units: most answers need no count.
    if (answer.length <= maxLength) return null;
    let length = 0;
    for (const _ of answer) length++;
    return length > maxLength ? `the answer is ${length} characters long; the limit is ${maxLength}` : null;
  };
}

function compileJsonSchema(schema: Record<string, unknown>): CompiledCheck {
  const validate: ValidateFunction = compileDialectSchema(schema, "2020-12", { strict: true });
  return (answer) => {
    let data: unknown;
    try {
      data = JSON.parse(answer);
    } catch {
      return "the answer is not JSON";
    }
    if (validate(data)) return null;
    // Ajv's own messages name the schema's constraints, never the data's values.
    const problems = [...new Set((validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? `fails "${error.keyword}"`}`))];
    const listed = problems.slice(0, MAX_LISTED_SCHEMA_PROBLEMS).join("; ");
    const more = problems.length > MAX_LISTED_SCHEMA_PROBLEMS ? `; and ${problems.length - MAX_LISTED_SCHEMA_PROBLEMS} more` : "";
    return `the answer does not match the JSON Schema: ${listed}${more}`;
  };
}
