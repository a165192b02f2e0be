import { describe, expect, test } from "vitest";
import Ajv2020 from "ajv/dist/2020";
import { addLinearFormats, linearPatternProblem, linearRegExp, linearRegexOptions, linearTest, translateToRe2, UnsupportedPatternError } from "./linear-regex";

/** Patterns and texts on which the engine must agree with V8 (u mode, unanchored), none of them slow in V8. */
const AGREEMENT: Array<[string, string[]]> = [
  ["^[a-z]+$", ["abc", "abC", "", "a\n"]],
  ["abc", ["xxabcxx", "ab", "ABC"]],
  ["^\\d{3}-\\d{4}$", ["555-1234", "555-12345", "٣٣٣-١٢٣٤"]],
  ["^\\w+$", ["snake_case_1", "é", "kebab-case"]],
  ["\\W", ["abc", "a b", "é"]],
  ["^\\s+$", [" \t\n\r\v\f", "\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff", "\u200b", "\u0085", "x"]],
  ["^\\S+$", ["abc", "a b", "\u200b\u0085"]],
  ["^.$", ["a", "\n", "\r", "\u2028", "\u2029", "😀", "\u0085"]],
  ["^.+$", ["one line", "two\nlines"]],
  ["a$", ["a", "a\n", "ba", "ab"]],
  ["^b", ["b", "a\nb"]],
  ["\\bword\\b", ["a word here", "swordfish", "word"]],
  ["\\Bor\\B", ["word", "or"]],
  ["^[^]$", ["\n", "a", ""]],
  ["[]", ["", "a"]],
  ["^[^abc]$", ["a", "d", "😀"]],
  ["^[\\s\\d]+$", ["1 2\u3000", "1a"]],
  ["^[\\S]$", [" ", "a", "\u3000"]],
  ["^[^\\S]$", [" ", "a", "\u3000"]],
  ["^[\\D]$", ["1", "a"]],
  ["^[^\\W_]+$", ["abc1", "a_b"]],
  ["^[a\\-z]+$", ["a-z", "b"]],
  ["^[a-]$", ["-", "b"]],
  ["^[\\b]$", ["\b", "b"]],
  ["^\\u0041\\x42\\u{43}$", ["ABC", "abc"]],
  ["^\\uD83D\\uDE00$", ["😀", "\ud83d"]],
  ["^\\u{1F600}+$", ["😀😀", "😀a"]],
  ["^[😀-😂]$", ["😁", "😃"]],
  ["^\\uD800$", ["\ud800", "😀"]],
  ["^\\cJ\\0$", ["\n\0", "cJ0"]],
  ["^\\/\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\$", ["/.*+?()[]{}|^$\\"]],
  ["^(?:ab|cd)*$", ["abcdab", "abc"]],
  ["^(a)(?<year>\\d{4})$", ["a2024", "a24"]],
  ["^a{2,3}?$", ["aa", "aaa", "aaaa"]],
  ["^a{2,}$", ["a", "aaaaa"]],
  ["^(?:)|x$", ["", "y"]],
  ["a|", ["", "b"]],
  ["^\\p{L}+$", ["héllo", "h3llo", "Ωμέγα"]],
  ["^\\p{Lu}\\p{Ll}+$", ["Hello", "hello"]],
  ["^\\P{L}+$", ["123", "1a"]],
  ["^[\\p{L}\\p{N}_]+$", ["a1_", "a-1"]],
  ["^[^\\p{L}]$", ["a", "1"]],
  ["^[\\P{L}]$", ["a", "1"]],
  ["^\\p{Script=Greek}+$", ["αβγ", "abc"]],
  ["^\\p{sc=Cyrillic}$", ["ж", "z"]],
  ["^\\p{General_Category=Decimal_Number}$", ["7", "x"]],
  ["^\\p{gc=Lu}$", ["A", "a"]],
  ["^\\p{Any}$", ["\u0378", "a"]],
  ["^\\p{ASCII}+$", ["abc", "é"]],
  ["^[\\P{ASCII}]$", ["é", "e"]],
  ["^\\p{Assigned}$", ["a", "\u0378"]],
  ["^\\p{C}$", ["\u0000", "a", "\ue000"]],
  ["^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$", ["ada@example.com", "ada@@example"]],
  ["^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)$", ["1.2.3", "01.2.3"]],
];

describe("the linear-time engine", () => {
  test.each(AGREEMENT)("agrees with V8 on %s", (pattern, texts) => {
    const native = new RegExp(pattern, "u");
    for (const text of texts) expect([text, linearTest(pattern, text)]).toEqual([text, native.test(text)]);
  });

  test("\\s and \\S match what they match in V8, for every BMP code point", () => {
    const white = new RegExp("\\s", "u");
    const differences: number[] = [];
    for (let codePoint = 0; codePoint <= 0xffff; codePoint++) {
      const char = String.fromCharCode(codePoint);
      if (linearTest("^\\s$", char) !== white.test(char) || linearTest("^[\\S]$", char) === white.test(char)) differences.push(codePoint);
    }
    expect(differences).toEqual([]);
  });

  test("a pattern that backtracks catastrophically in V8 runs in linear time", () => {
    const started = performance.now();
    expect(linearTest("^(a|a)+$", "a".repeat(36) + "!")).toBe(false);
    expect(linearTest("^(a+)+$", "a".repeat(100_000) + "!")).toBe(false);
    expect(linearTest("^(a|a)+$", "a".repeat(100_000))).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test.each([
    ["(a)\\1", "backreferences"],
    ["(?<x>a)\\k<x>", "backreferences"],
    ["a(?=b)", "lookahead and lookbehind"],
    ["a(?!b)", "lookahead and lookbehind"],
    ["(?<=a)b", "lookahead and lookbehind"],
    ["(?<!a)b", "lookahead and lookbehind"],
    ["a{1001}", "repetition counts above 1000"],
    ["a{2,5000}", "repetition counts above 1000"],
    ["\\p{Alphabetic}", "Unicode property"],
    ["\\p{Script_Extensions=Greek}", "Unicode property"],
  ])("refuses %s (%s) with a reason", (pattern, reason) => {
    expect(() => new RegExp(pattern, "u")).not.toThrow();
    expect(() => linearRegExp(pattern, "u")).toThrow(UnsupportedPatternError);
    expect(linearPatternProblem(pattern)).toContain(reason);
  });

  test("refuses what RE2 itself cannot compile, and names RE2's reason", () => {
    expect(linearPatternProblem("\\p{Script=Grek}")).toMatch(/^not supported by the linear-time regular expression engine \(.+\)$/);
  });

  test("an invalid u-mode pattern is a SyntaxError, as in V8", () => {
    for (const pattern of ["(", "a{2,1}", "\\q", "[z-a]", "{", "\\p{NoSuchProperty}"]) {
      expect(() => linearRegExp(pattern, "u")).toThrow(SyntaxError);
      expect(linearPatternProblem(pattern)).toMatch(/^not a valid regular expression: /);
    }
  });

  test("translates to RE2 syntax: non-capturing groups, escaped literals, ECMA-262 dot", () => {
    expect(translateToRe2("^(a.b)+$")).toBe("^(?:a[^\\x{A}\\x{D}\\x{2028}\\x{2029}]b)+$");
    expect(translateToRe2("a\\.b\\u{1F600}")).toBe("a\\x{2E}b\\x{1F600}");
  });
});

describe("the engine in Ajv", () => {
  test("every pattern and pattern property of a schema is checked with its own pattern", () => {
    const ajv = addLinearFormats(new Ajv2020({ strict: true, allErrors: true, ...linearRegexOptions }));
    const validate = ajv.compile({
      type: "object",
      properties: { word: { type: "string", pattern: "^(a|a)+$" }, code: { type: "string", pattern: "^[A-Z]{3}$" } },
      patternProperties: { "^x-": { type: "number" } },
    });
    expect(validate({ word: "aaaa", code: "ABC", "x-1": 1 })).toBe(true);
    const started = performance.now();
    expect(validate({ word: "a".repeat(36) + "!", code: "ABCD", "x-1": "one" })).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
    expect(validate.errors?.map((error) => `${error.instancePath} ${error.keyword}`).sort()).toEqual(["/code pattern", "/word pattern", "/x-1 type"]);
  });

  test("a pattern the engine cannot run fails compilation", () => {
    const ajv = new Ajv2020({ strict: true, ...linearRegexOptions });
    expect(() => ajv.compile({ type: "string", pattern: "(a)\\1" })).toThrow(UnsupportedPatternError);
  });

  test('format "regex" accepts exactly the patterns the engine accepts', () => {
    const ajv = addLinearFormats(new Ajv2020({ strict: true, ...linearRegexOptions }));
    const validate = ajv.compile({ type: "string", format: "regex" });
    expect(validate("^[a-z]+$")).toBe(true);
    expect(validate("a(?=b)")).toBe(false);
    expect(validate("(")).toBe(false);
  });
});
