/**
 * The regular-expression engine of every JSON Schema the server compiles: `pattern`, `patternProperties` and
 * `format: "regex"`. Schema patterns are ECMA-262 regular expressions in `u` mode, unanchored; a backtracking engine
 * (V8's) can take exponential time on some of them (`^(a|a)+$` against a few dozen characters stalls the process for
 * seconds), so they run on RE2JS, a pure-JavaScript port of RE2 whose matching time is linear in the input.
 *
 * A pattern is first checked as V8 would (`new RegExp(source, "u")`, which only parses), then translated from
 * ECMA-262 syntax to RE2 syntax so that it means what it means in JavaScript: `.` excludes the four line
 * terminators, `\s` is ECMA-262's white space, `\u{…}` and surrogate-pair escapes are code points, `[^]` matches
 * anything, `$` is the end of the input. What RE2 cannot run in linear time is refused with a reason:
 * backreferences (`\1`, `\k<name>`), lookahead and lookbehind (`(?=`, `(?!`, `(?<=`, `(?<!`), repetition counts above
 * 1000, and Unicode properties other than general categories, scripts, `Any`, `ASCII` and `Assigned`.
 */
import { RE2JS } from "re2js";
import addFormats from "ajv-formats";
import type Ajv from "ajv";

/** What Ajv needs of a compiled pattern (`toString` keys Ajv's cache of compiled patterns, so it names the pattern). */
export type LinearRegExp = { readonly source: string; test(text: string): boolean; toString(): string };

/** A pattern that is valid ECMA-262 but that the linear-time engine cannot run. */
export class UnsupportedPatternError extends Error {
  override name = "UnsupportedPatternError";
}

/** ECMA-262 WhiteSpace and LineTerminator code points (what `\s` matches), as RE2 class items. */
const WHITE_SPACE = "\\x{9}-\\x{D}\\x{20}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
/** The complement of WHITE_SPACE over all code points, as RE2 class items (for `\S` inside a class). */
const NOT_WHITE_SPACE =
  "\\x{0}-\\x{8}\\x{E}-\\x{1F}\\x{21}-\\x{9F}\\x{A1}-\\x{167F}\\x{1681}-\\x{1FFF}\\x{200B}-\\x{2027}\\x{202A}-\\x{202E}" +
  "\\x{2030}-\\x{205E}\\x{2060}-\\x{2FFF}\\x{3001}-\\x{FEFE}\\x{FF00}-\\x{10FFFF}";
const ALL = "\\x{0}-\\x{10FFFF}";
/** A class that matches nothing (RE2 accepts the complement of everything). */
const NOTHING = `[^${ALL}]`;
const MAX_REPEAT = 1000;
const CACHE_SIZE = 500;

/** ECMA-262 General_Category values (long names and aliases) → the short name RE2 knows. */
const GENERAL_CATEGORIES: Record<string, string> = Object.fromEntries(
  (
    [
      ["L", "Letter"], ["LC", "Cased_Letter"], ["Lu", "Uppercase_Letter"], ["Ll", "Lowercase_Letter"],
      ["Lt", "Titlecase_Letter"], ["Lm", "Modifier_Letter"], ["Lo", "Other_Letter"],
      ["M", "Mark", "Combining_Mark"], ["Mn", "Nonspacing_Mark"], ["Mc", "Spacing_Mark"], ["Me", "Enclosing_Mark"],
      ["N", "Number"], ["Nd", "Decimal_Number", "digit"], ["Nl", "Letter_Number"], ["No", "Other_Number"],
      ["P", "Punctuation", "punct"], ["Pc", "Connector_Punctuation"], ["Pd", "Dash_Punctuation"],
      ["Ps", "Open_Punctuation"], ["Pe", "Close_Punctuation"], ["Pi", "Initial_Punctuation"],
      ["Pf", "Final_Punctuation"], ["Po", "Other_Punctuation"],
      ["S", "Symbol"], ["Sm", "Math_Symbol"], ["Sc", "Currency_Symbol"], ["Sk", "Modifier_Symbol"], ["So", "Other_Symbol"],
      ["Z", "Separator"], ["Zs", "Space_Separator"], ["Zl", "Line_Separator"], ["Zp", "Paragraph_Separator"],
      ["C", "Other"], ["Cc", "Control", "cntrl"], ["Cf", "Format"], ["Cs", "Surrogate"], ["Co", "Private_Use"],
      ["Cn", "Unassigned"],
    ] as string[][]
  ).flatMap((names) => names.map((name) => [name, names[0]])),
);

const compiledPatterns = new Map<string, RE2JS>();

/**
 * The engine Ajv calls for every pattern of a schema it compiles (Ajv's `code.regExp` option): throws a SyntaxError
 * for a pattern that is not a valid `u`-mode regular expression and an UnsupportedPatternError for one the engine
 * cannot run. `flags` is Ajv's: "u" (or "" when Ajv's `unicodeRegExp` is off; the pattern is read in `u` mode anyway).
 */
export const linearRegExp = Object.assign(
  (source: string, flags = "u"): LinearRegExp => {
    if (flags !== "u" && flags !== "") throw new UnsupportedPatternError(`flags "${flags}" are not supported`);
    const compiled = compileLinear(source);
    return { source, test: (text) => compiled.test(text), toString: () => `/${source}/u` };
  },
  // Ajv writes this into code it generates only for `$data` patterns and standalone code, which the project does not use.
  { code: 'require("re2js").RE2JS.compile' },
);

/** Ajv options that make Ajv compile every pattern with the linear-time engine. Spread into an Ajv constructor's options. */
export const linearRegexOptions = { code: { regExp: linearRegExp } } as const;

/**
 * Adds ajv-formats' formats to `ajv`, with `format: "regex"` meaning "a pattern the linear-time engine accepts"
 * (ajv-formats' own check only asks whether V8 can parse it).
 */
export function addLinearFormats<T extends Ajv>(ajv: T): T {
  addFormats(ajv);
  ajv.addFormat("regex", { type: "string", validate: (value: string) => linearPatternProblem(value) === null });
  return ajv;
}

/** Why `source` cannot be a schema pattern (invalid in `u` mode, or not supported by the engine), or null when it can. */
export function linearPatternProblem(source: string): string | null {
  try {
    compileLinear(source);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Whether `text` contains a match of `source` (unanchored, as JSON Schema's `pattern`). Throws as linearRegExp does. */
export function linearTest(source: string, text: string): boolean {
  return compileLinear(source).test(text);
}

function compileLinear(source: string): RE2JS {
  const cached = compiledPatterns.get(source);
  if (cached) return cached;
  try {
    new RegExp(source, "u"); // parses only; nothing is matched
  } catch (error) {
    throw new SyntaxError(`not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`);
  }
  const translated = translateToRe2(source);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(translated);
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^error parsing regexp: /, "") : String(error);
    throw new UnsupportedPatternError(`not supported by the linear-time regular expression engine (${reason})`);
  }
  if (compiledPatterns.size >= CACHE_SIZE) compiledPatterns.delete(compiledPatterns.keys().next().value as string);
  compiledPatterns.set(source, compiled);
  return compiled;
}

/**
 * RE2 syntax for a valid `u`-mode ECMA-262 pattern, with the same meaning. Throws an UnsupportedPatternError for a
 * construct RE2 lacks. Groups become non-capturing (only whether the pattern matches is ever asked).
 */
export function translateToRe2(source: string): string {
  return new Translator(source).translate();
}

class Translator {
  private readonly chars: string[];
  private index = 0;

  constructor(source: string) {
    this.chars = Array.from(source); // u mode: a surrogate pair in the source is one character
  }

  translate(): string {
    const out = this.disjunction();
    if (this.index < this.chars.length) throw new SyntaxError(`unexpected "${this.peek()}"`);
    return out;
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.index + offset];
  }

  private next(): string {
    const char = this.chars[this.index++];
    if (char === undefined) throw new SyntaxError("unexpected end of pattern");
    return char;
  }

  private eat(text: string): boolean {
    const chars = Array.from(text);
    if (chars.some((char, offset) => this.peek(offset) !== char)) return false;
    this.index += chars.length;
    return true;
  }

  private disjunction(): string {
    const alternatives = [this.alternative()];
    while (this.eat("|")) alternatives.push(this.alternative());
    return alternatives.join("|");
  }

  private alternative(): string {
    let out = "";
    while (this.index < this.chars.length && this.peek() !== "|" && this.peek() !== ")") out += this.term();
    return out;
  }

  private term(): string {
    const char = this.peek();
    if (char === "^") return (this.index++, "^");
    if (char === "$") return (this.index++, "$");
    if (char === "\\" && (this.peek(1) === "b" || this.peek(1) === "B")) return (this.index += 2, `\\${this.chars[this.index - 1]}`);
    if (char === "(" && this.peek(1) === "?" && (this.peek(2) === "=" || this.peek(2) === "!" || (this.peek(2) === "<" && (this.peek(3) === "=" || this.peek(3) === "!"))))
      throw new UnsupportedPatternError("lookahead and lookbehind assertions ((?=, (?!, (?<=, (?<!) are not supported by the linear-time regular expression engine");
    return this.atom() + this.quantifier();
  }

  private atom(): string {
    const char = this.next();
    switch (char) {
      case ".":
        return "[^\\x{A}\\x{D}\\x{2028}\\x{2029}]";
      case "[":
        return this.characterClass();
      case "(":
        return this.group();
      case "\\":
        return this.atomEscape();
      default:
        return hex(char.codePointAt(0) as number);
    }
  }

  private group(): string {
    if (this.eat("?:")) {
      // non-capturing
    } else if (this.eat("?<")) {
      while (this.next() !== ">"); // a group name
    }
    const inner = this.disjunction();
    if (!this.eat(")")) throw new SyntaxError("unterminated group");
    return `(?:${inner})`;
  }

  private quantifier(): string {
    let out: string;
    const char = this.peek();
    if (char === "*" || char === "+" || char === "?") {
      this.index++;
      out = char;
    } else if (char === "{") {
      // u mode: a "{" after an atom always starts a valid {n}, {n,} or {n,m}
      this.index++;
      const min = this.digits();
      const comma = this.eat(",");
      const max = comma ? this.digits() : "";
      if (!this.eat("}")) throw new SyntaxError("incomplete quantifier");
      for (const count of [min, max]) {
        if (count && Number(count) > MAX_REPEAT)
          throw new UnsupportedPatternError(`repetition counts above ${MAX_REPEAT} ({${count}}) are not supported by the linear-time regular expression engine`);
      }
      out = `{${Number(min)}${comma ? `,${max ? Number(max) : ""}` : ""}}`;
    } else {
      return "";
    }
    if (this.eat("?")) out += "?";
    return out;
  }

  private digits(): string {
    let digits = "";
    while (/[0-9]/.test(this.peek() ?? "")) digits += this.next();
    return digits;
  }

  private atomEscape(): string {
    const char = this.peek();
    if (char !== undefined && /[1-9]/.test(char) || (char === "k" && this.peek(1) === "<"))
      throw new UnsupportedPatternError("backreferences (\\1, \\k<name>) are not supported by the linear-time regular expression engine");
    const classEscape = this.classEscapeItems();
    if (classEscape) return classEscape.negated ? `[^${classEscape.items}]` : `[${classEscape.items}]`;
    return hex(this.characterEscape());
  }

  /** `\d \D \s \S \w \W \p{…} \P{…}` after the backslash, as RE2 class items, or undefined for another escape. */
  private classEscapeItems(): { items: string; negated: boolean } | undefined {
    const char = this.peek();
    switch (char) {
      case "d":
      case "D":
        this.index++;
        return { items: "0-9", negated: char === "D" };
      case "w":
      case "W":
        this.index++;
        return { items: "0-9A-Za-z_", negated: char === "W" };
      case "s":
      case "S":
        this.index++;
        return { items: WHITE_SPACE, negated: char === "S" };
      case "p":
      case "P": {
        this.index++;
        if (!this.eat("{")) throw new SyntaxError("invalid property name");
        let name = "";
        for (let next = this.next(); next !== "}"; next = this.next()) name += next;
        return { items: propertyItems(name), negated: char === "P" };
      }
      default:
        return undefined;
    }
  }

  /** The code point of a character escape after the backslash (u mode). */
  private characterEscape(): number {
    const char = this.next();
    switch (char) {
      case "t":
        return 0x09;
      case "n":
        return 0x0a;
      case "v":
        return 0x0b;
      case "f":
        return 0x0c;
      case "r":
        return 0x0d;
      case "0":
        return 0;
      case "c":
        return (this.next().codePointAt(0) as number) % 32;
      case "x":
        return parseInt(this.next() + this.next(), 16);
      case "u": {
        if (this.eat("{")) {
          let hex = "";
          for (let next = this.next(); next !== "}"; next = this.next()) hex += next;
          return parseInt(hex, 16);
        }
        const unit = parseInt(this.chars.slice(this.index, this.index + 4).join(""), 16);
        this.index += 4;
        // u mode: \uD83D\uDE00 is one code point
        if (unit >= 0xd800 && unit <= 0xdbff && this.peek() === "\\" && this.peek(1) === "u") {
          const low = parseInt(this.chars.slice(this.index + 2, this.index + 6).join(""), 16);
          if (low >= 0xdc00 && low <= 0xdfff) {
            this.index += 6;
            return (unit - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
          }
        }
        return unit;
      }
      default:
        return char.codePointAt(0) as number; // an identity escape: a syntax character, "/" or (in a class) "-"
    }
  }

  private characterClass(): string {
    const negated = this.eat("^");
    let items = "";
    while (!this.eat("]")) {
      const start = this.classAtom();
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.index++;
        const end = this.classAtom();
        if (typeof start !== "number" || typeof end !== "number") throw new SyntaxError("invalid character class range");
        items += `${hex(start)}-${hex(end)}`;
      } else {
        items += typeof start === "number" ? hex(start) : start.items;
      }
    }
    if (items === "") return negated ? `[${ALL}]` : NOTHING;
    return negated ? `[^${items}]` : `[${items}]`;
  }

  /** One class atom: a code point, or the items of a class escape (negated escapes as their complement). */
  private classAtom(): number | { items: string } {
    const char = this.next();
    if (char !== "\\") return char.codePointAt(0) as number;
    if (this.peek() === "b") return (this.index++, 0x08);
    if (this.peek() === "-") return (this.index++, 0x2d);
    const escape = this.classEscapeItems();
    if (!escape) return this.characterEscape();
    if (!escape.negated) return { items: escape.items };
    if (escape.items === WHITE_SPACE) return { items: NOT_WHITE_SPACE };
    return { items: complementItem(escape.items) };
  }
}

/** A negated class escape as items of an enclosing class: RE2 has `\D`, `\W` and `\P{…}` for that. */
function complementItem(items: string): string {
  if (items === "0-9") return "\\D";
  if (items === "0-9A-Za-z_") return "\\W";
  if (items === ALL) return "";
  if (items === "\\x{0}-\\x{7F}") return "\\x{80}-\\x{10FFFF}";
  const property = /^\\p\{(\w+)\}$/.exec(items);
  if (property) return `\\P{${property[1]}}`;
  if (items === "\\P{Cn}") return "\\p{Cn}";
  throw new UnsupportedPatternError("this negated property is not supported inside a character class");
}

/** The RE2 class items for the Unicode property `\p{name}` of a u-mode pattern. */
function propertyItems(name: string): string {
  const [key, value] = name.includes("=") ? name.split("=", 2) : [undefined, name];
  if (key === undefined || key === "General_Category" || key === "gc") {
    const category = GENERAL_CATEGORIES[value];
    if (category) return `\\p{${category}}`;
    if (key === undefined && value === "Any") return ALL;
    if (key === undefined && value === "ASCII") return "\\x{0}-\\x{7F}";
    if (key === undefined && value === "Assigned") return "\\P{Cn}";
  }
  // Scripts by their long names (Latin, Greek, Cyrillic, Han…), as RE2 names them; RE2 refuses other names.
  if ((key === "Script" || key === "sc") && /^\w+$/.test(value)) return `\\p{${value}}`;
  throw new UnsupportedPatternError(`the Unicode property \\p{${name}} is not supported by the linear-time regular expression engine (general categories, scripts by long name, Any, ASCII and Assigned are)`);
}

/** A code point as RE2 text that is literal both inside and outside a class: a letter or digit, else `\x{…}`. */
function hex(codePoint: number): string {
  const char = String.fromCodePoint(codePoint);
  return /^[A-Za-z0-9]$/.test(char) ? char : `\\x{${codePoint.toString(16).toUpperCase()}}`;
}
