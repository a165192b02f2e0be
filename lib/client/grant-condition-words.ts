/**
 * A grant's condition (a JSON Schema over the call's arguments) said in words, for the console's lists. The common
 * shapes — properties with `const`, `enum`, bounds, `pattern`, lengths — read as sentences; anything else is
 * summarised as "a JSON Schema" and shown in full beside it.
 */
type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);
const show = (value: unknown) => (typeof value === "string" ? `“${value}”` : JSON.stringify(value));

function propertyWords(name: string, schema: unknown): string | null {
  if (!isObject(schema)) return null;
  const parts: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    switch (keyword) {
      case "const":
        parts.push(`is ${show(value)}`);
        break;
      case "enum":
        if (!Array.isArray(value)) return null;
        parts.push(value.length === 1 ? `is ${show(value[0])}` : `is one of ${value.map(show).join(", ")}`);
        break;
      case "minimum":
        parts.push(`≥ ${value}`);
        break;
      case "maximum":
        parts.push(`≤ ${value}`);
        break;
      case "exclusiveMinimum":
        parts.push(`> ${value}`);
        break;
      case "exclusiveMaximum":
        parts.push(`< ${value}`);
        break;
      case "pattern": {
        // The console's "starts with" writes an anchored, escaped literal.
        const literal = typeof value === "string" ? /^\^((?:\\[\\^$.*+?()[\]{}|/]|[^\\^$.*+?()[\]{}|/])*)$/.exec(value) : null;
        parts.push(literal ? `starts with ${show(literal[1].replace(/\\(.)/g, "$1"))}` : `matches /${value}/`);
        break;
      }
      case "not": {
        if (!isObject(value) || Object.keys(value).length !== 1 || !("const" in value)) return null;
        parts.push(`is not ${show(value.const)}`);
        break;
      }
      case "allOf": {
        if (!Array.isArray(value)) return null;
        for (const part of value) {
          const words = propertyWords("", part);
          if (!words) return null;
          parts.push(words.trim());
        }
        break;
      }
      case "maxLength":
        parts.push(`has at most ${value} characters`);
        break;
      case "minLength":
        parts.push(`has at least ${value} characters`);
        break;
      case "type":
        if (typeof value !== "string") return null;
        parts.push(`is a${/^[aeiou]/.test(value) ? "n" : ""} ${value}`);
        break;
      case "title":
      case "description":
        break;
      default:
        return null;
    }
  }
  return parts.length ? `${name} ${parts.join(" and ")}`.trim() : null;
}

/** `null` (no condition): every call. */
export function grantConditionInWords(condition: unknown): { words: string; readable: boolean } {
  if (condition === null || condition === undefined) return { words: "every call", readable: true };
  if (!isObject(condition)) return { words: "calls matching a JSON Schema", readable: false };
  const { type, properties, required, additionalProperties, ...rest } = condition;
  if (Object.keys(rest).some((key) => key !== "$schema" && key !== "title" && key !== "description")) return { words: "calls matching a JSON Schema", readable: false };
  if (type !== undefined && type !== "object") return { words: "calls matching a JSON Schema", readable: false };
  if (additionalProperties !== undefined && additionalProperties !== true) return { words: "calls matching a JSON Schema", readable: false };
  if (!isObject(properties) || Object.keys(properties).length === 0) return Object.keys(condition).length <= 1 ? { words: "every call", readable: true } : { words: "calls matching a JSON Schema", readable: false };
  const requiredNames = Array.isArray(required) ? required.filter((name): name is string => typeof name === "string") : [];
  const sentences: string[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    const words = propertyWords(name, schema);
    if (!words) return { words: "calls matching a JSON Schema", readable: false };
    sentences.push(requiredNames.includes(name) ? words : `${words} (when given)`);
  }
  return { words: `calls where ${sentences.join("; ")}`, readable: true };
}
