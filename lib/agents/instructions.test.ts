import { describe, expect, it } from "vitest";
import {
  InstructionsError,
  analyzeInstructions,
  inspectInstructions,
  renderInstructions,
  type RenderContext,
} from "./instructions";

function context(parameters: Record<string, unknown> = {}): RenderContext {
  return {
    parameters,
    agent: { id: "acme.helper", name: "Helper", version: "1.2.0" },
    conversation: { id: "c-1", turn: 3 },
    now: new Date("2024-03-09T23:30:00.000Z"),
  };
}

function renderError(template: string, parameters: Record<string, unknown> = {}): InstructionsError {
  try {
    renderInstructions(template, context(parameters));
  } catch (err) {
    if (err instanceof InstructionsError) return err;
    throw err;
  }
  throw new Error("rendered without error");
}

describe("analyzeInstructions", () => {
  it("accepts declared parameters and every auto-var", () => {
    const template =
      "{{ name }} {{ today }} {{ now }} {{ agent.id }} {{ agent.name }} {{ agent.version }} {{ conversation.id }} {{ conversation.turn }}";
    expect(analyzeInstructions(template, ["name"])).toEqual([]);
  });

  it("reports a template past Liquid's parse limit as an issue, not an exception", () => {
    expect(analyzeInstructions("x".repeat(1_000_001), [])).toEqual([{ message: "parse length limit exceeded", line: 1, column: 1 }]);
  });

  it("accepts {% if %} / {% elsif %} / {% else %} on declared parameters", () => {
    expect(analyzeInstructions("{% if a > 1 %}x{% elsif b %}y{% else %}z{% endif %}", ["a", "b"])).toEqual([]);
  });

  it("treats {% for %} loop variables and forloop as local", () => {
    expect(analyzeInstructions("{% for x in items %}{{ forloop.index }}={{ x.name }}{% endfor %}", ["items"])).toEqual([]);
  });

  it("treats assign, capture and increment as local", () => {
    const template = "{% assign a = p | upcase %}{% capture c %}{{ a }}{% endcapture %}{% increment n %}{{ c }}{{ n }}";
    expect(analyzeInstructions(template, ["p"])).toEqual([]);
  });

  it("accepts filters with arguments", () => {
    expect(analyzeInstructions("{{ d | date: '%b %d' }} {{ n | plus: 1 | round }} {{ s | default: 'none' }}", ["d", "n", "s"])).toEqual([]);
  });

  it("reports an unknown variable at its line and column", () => {
    expect(analyzeInstructions("Hello\n  {{ who }}", [])).toEqual([
      {
        message:
          'unknown variable "who": declare it as a parameter or use an auto-var (today, now, agent.id, agent.name, agent.version, conversation.id, conversation.turn)',
        line: 2,
        column: 6,
      },
    ]);
  });

  it("reports every occurrence, in template order", () => {
    const issues = analyzeInstructions("{{ b }}\n{{ a }}{{ b }}", []);
    expect(issues.map(({ line, column }) => [line, column])).toEqual([
      [1, 4],
      [2, 4],
      [2, 11],
    ]);
  });

  it("reports variables in filter arguments and loop sources", () => {
    const issues = analyzeInstructions("{{ p | append: suffix }}{% for x in list %}{% endfor %}", ["p"]);
    expect(issues.map((i) => i.message.split(":")[0])).toEqual(['unknown variable "suffix"', 'unknown variable "list"']);
  });

  it("reports a local used outside its scope", () => {
    expect(analyzeInstructions("{{ a }}{% assign a = 1 %}", [])).toHaveLength(1);
    expect(analyzeInstructions("{% for x in xs %}{% endfor %}{{ x }}", ["xs"])).toHaveLength(1);
  });

  it("refuses unknown auto-var fields and bare auto-var namespaces", () => {
    expect(analyzeInstructions("{{ agent.owner }} {{ conversation }} {% if agent %}{% endif %}", [])).toEqual([
      { message: 'unknown auto-var "agent.owner"; use agent.id, agent.name or agent.version', line: 1, column: 4 },
      { message: '"conversation" cannot be used as a value; use conversation.id or conversation.turn', line: 1, column: 22 },
      { message: '"agent" cannot be used as a value; use agent.id, agent.name or agent.version', line: 1, column: 44 },
    ]);
  });

  it("refuses dynamic auto-var fields", () => {
    expect(analyzeInstructions("{{ agent[key] }}", ["key"])[0].message).toMatch(/^unknown auto-var "agent\./);
  });

  it("reports an unknown filter at its line and column", () => {
    expect(analyzeInstructions("ok\n{{ name | shout }}", ["name"])).toEqual([
      { message: 'unknown filter "shout"', line: 2, column: 1 },
    ]);
  });

  it("reports a parse error at its line and column", () => {
    expect(analyzeInstructions("one\ntwo {% for x in xs %}", ["xs"])).toEqual([
      { message: "tag {% for x in xs %} not closed", line: 2, column: 5 },
    ]);
    expect(analyzeInstructions("{{ name", ["name"])).toEqual([
      { message: 'output "{{ name" not closed', line: 1, column: 1 },
    ]);
  });

  it.each(["include", "render", "layout"])("refuses {%% %s %%}: no file access", (tag) => {
    expect(analyzeInstructions(`x\n {% ${tag} 'header' %}`, [])).toEqual([
      { message: `{% ${tag} %} is not supported in instructions`, line: 2, column: 2 },
    ]);
  });
});

describe("inspectInstructions", () => {
  it("lists the declared parameters the template uses", () => {
    const { issues, referencedParameters } = inspectInstructions("{{ a }}{% if b %}{{ a }}{% endif %}{{ today }}", ["a", "b", "c"]);
    expect(issues).toEqual([]);
    expect(referencedParameters.sort()).toEqual(["a", "b"]);
  });
});

describe("renderInstructions", () => {
  it("substitutes parameters and auto-vars (today in UTC)", () => {
    const template =
      "{{ who }}|{{ today }}|{{ now }}|{{ agent.id }}|{{ agent.name }}|{{ agent.version }}|{{ conversation.id }}|{{ conversation.turn }}";
    expect(renderInstructions(template, context({ who: "Ada" }))).toBe(
      "Ada|2024-03-09|2024-03-09T23:30:00.000Z|acme.helper|Helper|1.2.0|c-1|3",
    );
  });

  it("renders text without Liquid markup as itself, as Liquid renders the same text beside a tag", () => {
    for (const text of ["You tell the time.", "a } } b }} c %} d { { e { % f", "  spaced\n\ttabs \u00e9\u{1F600}  ", ""]) {
      expect(renderInstructions(text, context())).toBe(text);
      expect(renderInstructions(`${text}{{ agent.id }}${text}`, context())).toBe(`${text}acme.helper${text}`);
    }
    // Past Liquid's parse limit the template is refused, markup or not, with the limit named.
    expect(renderError("x".repeat(1_000_001)).reason).toBe("parse length limit exceeded");
    expect(renderError(`{{ agent.id }}${"x".repeat(1_000_001)}`).reason).toBe("parse length limit exceeded");
  });

  it("runs {% if %} and {% for %} with filters", () => {
    const template =
      "{% if vip %}VIP {% endif %}{% assign list = topics | split: ',' %}{% for t in list %}{{ t | strip | upcase }};{% endfor %}";
    expect(renderInstructions(template, context({ vip: true, topics: "a, b" }))).toBe("VIP A;B;");
    expect(renderInstructions(template, context({ vip: false, topics: "c" }))).toBe("C;");
  });

  it("formats dates in UTC", () => {
    expect(renderInstructions("{{ now | date: '%Y-%m-%d %H:%M' }}", context())).toBe("2024-03-09 23:30");
  });

  it("lets auto-vars win over parameters of the same name", () => {
    expect(renderInstructions("{{ today }} {{ agent.id }}", context({ today: "x", agent: { id: "y" } }))).toBe(
      "2024-03-09 acme.helper",
    );
  });

  it("renders a null conversation id as empty and null parameters as falsy", () => {
    const ctx = { ...context({ nick: null }), conversation: { id: null, turn: 1 } };
    expect(renderInstructions("[{{ conversation.id }}]{% if nick %}x{% else %}y{% endif %}", ctx)).toBe("[]y");
  });

  it("throws InstructionsError with line and column for a variable without value", () => {
    const err = renderError("Hi\n  {{ who }}");
    expect(err).toMatchObject({ line: 2, column: 6, reason: 'variable "who" has no value' });
    expect(err.message).toBe('line 2, column 6: variable "who" has no value');
  });

  it("throws InstructionsError for unknown auto-var fields", () => {
    expect(renderError("{{ agent.owner }}")).toMatchObject({ line: 1, column: 4, reason: 'variable "agent.owner" has no value' });
  });

  it("throws InstructionsError for parse errors and unknown filters", () => {
    expect(renderError("a\n{% if x %}")).toMatchObject({ line: 2, column: 1, reason: "tag {% if x %} not closed" });
    expect(renderError("{{ x | shout }}", { x: 1 })).toMatchObject({ line: 1, column: 1, reason: 'unknown filter "shout"' });
  });

  it("does not expose prototype properties", () => {
    expect(renderError("{{ who.constructor }}", { who: {} }).reason).toBe('variable "who.constructor" has no value');
  });

  it("stops runaway loops", () => {
    expect(renderError("{% for i in (1..100000000) %}{{ i }}{% endfor %}").reason).toMatch(/limit exceeded/);
  });

  it("reuses the parsed template for the same source", () => {
    const template = "{{ n }}";
    expect(renderInstructions(template, context({ n: 1 }))).toBe("1");
    expect(renderInstructions(template, context({ n: 2 }))).toBe("2");
  });
});
