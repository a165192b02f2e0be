"use client";

/**
 * The one form generated from a JSON Schema, used by the catalog's "try it", the agent's parameter form and the
 * approval inbox's "edit arguments". It renders with @rjsf/core and our Tailwind templates; a schema the form cannot
 * express (oneOf/anyOf without a discriminator, $ref cycles, patternProperties, …) is edited as JSON, and any schema
 * can be switched to JSON. Client-side errors come from Ajv 8 in the schema's own dialect; server issues (JSON
 * pointers relative to the form value) are shown at the field they name.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import Form from "@rjsf/core";
import { createSchemaUtils, deepEquals, type ErrorSchema, type RJSFSchema, type RJSFValidationError, type ValidatorType } from "@rjsf/utils";
import { customizeValidator } from "@rjsf/validator-ajv8";
import Ajv from "ajv";
import Ajv2019 from "ajv/dist/2019";
import Ajv2020 from "ajv/dist/2020";
import draft06MetaSchema from "ajv/dist/refs/json-schema-draft-06.json";
import { Button, focusRing } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { templates, widgets } from "@/components/forms/rjsf-theme";
import { JsonEditor } from "@/components/forms/json-editor";
import type { Issue } from "@/lib/client/api";
import { dialectOf, formability, isPathInForm, issuesToErrorTree, jsonParseError } from "@/components/forms/schema-support";

export type SchemaFormProps = {
  schema: object;
  value: unknown;
  onChange(value: unknown): void;
  /** Called with the value once it passes the schema; without it the form has no submit button. */
  onSubmit?(value: unknown): void;
  /** Server issues, JSON pointers relative to the form value, shown at their fields. */
  issues?: Issue[];
  /** Prefix of every control's id, unique on the page (e.g. "try-it"). */
  idPrefix: string;
  submitLabel?: string;
  disabled?: boolean;
  /** Rendered beside the submit button (e.g. a Cancel button or a status). */
  children?: ReactNode;
};

type Dialect = ReturnType<typeof dialectOf>;
const validators = new Map<Dialect, ValidatorType>();

/** One validator per dialect: draft-06/07, 2019-09 and 2020-12 cannot share an Ajv instance. */
function validatorFor(dialect: Dialect): ValidatorType {
  let validator = validators.get(dialect);
  if (!validator) {
    const AjvClass = (dialect === "2020-12" ? Ajv2020 : dialect === "2019-09" ? Ajv2019 : Ajv) as unknown as typeof Ajv;
    validator = customizeValidator({ AjvClass, additionalMetaSchemas: dialect === "draft-06" ? [draft06MetaSchema] : undefined });
    validators.set(dialect, validator);
  }
  return validator;
}

/** Plain words for the validator's messages, shown under the field. */
function transformErrors(errors: RJSFValidationError[]): RJSFValidationError[] {
  return errors.map((error) => {
    const params = (error.params ?? {}) as { limit?: number; format?: string; pattern?: string; type?: string };
    const message = (() => {
      switch (error.name) {
        case "required": return "Required";
        case "enum": return "Choose one of the listed values";
        case "maximum": return `Must be at most ${params.limit}`;
        case "minimum": return `Must be at least ${params.limit}`;
        case "exclusiveMaximum": return `Must be less than ${params.limit}`;
        case "exclusiveMinimum": return `Must be more than ${params.limit}`;
        case "minLength": return `Must be at least ${params.limit} character${params.limit === 1 ? "" : "s"}`;
        case "maxLength": return `Must be at most ${params.limit} character${params.limit === 1 ? "" : "s"}`;
        case "minItems": return `Needs at least ${params.limit} item${params.limit === 1 ? "" : "s"}`;
        case "maxItems": return `Takes at most ${params.limit} item${params.limit === 1 ? "" : "s"}`;
        case "format": return `Must be a valid ${params.format}`;
        case "pattern": return `Must match the pattern ${params.pattern}`;
        case "type": return params.type ? `Must be ${/^[aeiou]/.test(params.type) ? "an" : "a"} ${params.type}` : "Has the wrong type";
        default: return error.message ? error.message.charAt(0).toUpperCase() + error.message.slice(1) : "Not valid";
      }
    })();
    return { ...error, message };
  });
}

const describe = (value: unknown) => JSON.stringify(value === undefined ? {} : value, null, 2);

/** Schema problems of a JSON value, as "pointer: message" lines, or null when it is valid. */
function schemaProblems(validator: ValidatorType, schema: RJSFSchema, value: unknown): string | null {
  try {
    const { errors } = validator.rawValidation<{ instancePath: string; message?: string; params?: { missingProperty?: string } }>(schema, value);
    if (!errors || errors.length === 0) return null;
    return errors
      .map((error) => {
        const path = error.params?.missingProperty ? `${error.instancePath}/${error.params.missingProperty}` : error.instancePath;
        return `${path || "/"}: ${error.params?.missingProperty ? "required" : (error.message ?? "is not valid")}`;
      })
      .join("\n");
  } catch (error) {
    return `The schema cannot be checked here: ${error instanceof Error ? error.message : String(error)}`;
  }
}

export function SchemaForm(props: SchemaFormProps) {
  const { schema, value, onChange, onSubmit, issues = [], idPrefix, submitLabel = "Submit", disabled, children } = props;
  const rjsfSchema = schema as RJSFSchema;
  const support = useMemo(() => formability(schema), [schema]);
  const validator = useMemo(() => validatorFor(dialectOf(schema)), [schema]);
  const [mode, setMode] = useState<"form" | "json">(support.formable ? "form" : "json");
  const [jsonText, setJsonText] = useState(() => describe(value));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const formRef = useRef<Form>(null);
  const lastJsonValue = useRef<unknown>(undefined);

  useEffect(() => {
    if (!support.formable) setMode("json");
  }, [support.formable]);

  // The parent's value starts with the schema's defaults, so what it submits is what the form shows.
  useEffect(() => {
    if (!support.formable) return;
    try {
      const withDefaults = createSchemaUtils(validator, rjsfSchema).getDefaultFormState(rjsfSchema, value as never);
      if (!deepEquals(withDefaults, value)) onChange(withDefaults);
    } catch {
      // a schema the library cannot default is shown as it is
    }
    // only when the schema changes
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [schema]);

  // The JSON text follows the value when the value changed from outside the editor.
  useEffect(() => {
    if (mode === "json" && !deepEquals(value, lastJsonValue.current)) {
      setJsonText(describe(value));
      lastJsonValue.current = value;
    }
  }, [value, mode]);

  const extraErrors = useMemo(() => (issues.length ? (issuesToErrorTree(issues) as ErrorSchema) : undefined), [issues]);
  const unplaced = useMemo(() => (mode === "form" ? issues.filter((issue) => !isPathInForm(schema, issue.path)) : issues), [issues, schema, mode]);

  const switchTo = (next: "form" | "json") => {
    if (next === mode) return;
    if (next === "json") {
      setJsonText(describe(value));
      lastJsonValue.current = value;
      setJsonError(null);
      setMode("json");
      return;
    }
    const parseError = jsonParseError(jsonText);
    if (parseError) return setJsonError(`Fix the JSON before switching to the form: ${parseError}`);
    setMode("form");
  };

  const onJsonChange = (text: string) => {
    setJsonText(text);
    const parseError = jsonParseError(text);
    setJsonError(parseError);
    if (!parseError) {
      const parsed = JSON.parse(text) as unknown;
      lastJsonValue.current = parsed;
      onChange(parsed);
    }
  };

  const submitJson = () => {
    const parseError = jsonParseError(jsonText);
    if (parseError) return setJsonError(parseError);
    const parsed = JSON.parse(jsonText) as unknown;
    const problems = schemaProblems(validator, rjsfSchema, parsed);
    if (problems) return setJsonError(problems);
    setJsonError(null);
    onSubmit?.(parsed);
  };

  const onKeyDown = useCallback(
    (event: KeyboardEvent<HTMLDivElement>) => {
      if (event.key === "Enter" && (event.metaKey || event.ctrlKey) && onSubmit && !disabled) {
        event.preventDefault();
        if (mode === "json") submitJson();
        else formRef.current?.submit();
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [mode, jsonText, onSubmit, disabled],
  );

  const footer = onSubmit || children ? (
    <div className="flex flex-wrap items-center gap-2 pt-2">
      {onSubmit ? (
        <Button type="submit" variant="primary" disabled={disabled}>
          {submitLabel}
        </Button>
      ) : null}
      {children}
    </div>
  ) : null;

  return (
    <div className="space-y-3" onKeyDown={onKeyDown}>
      <div role="group" aria-label="Edit as" className="inline-flex rounded-md border border-zinc-300 p-0.5 text-xs dark:border-zinc-600">
        {(["form", "json"] as const).map((option) => (
          <button
            key={option}
            type="button"
            aria-pressed={mode === option}
            disabled={option === "form" && !support.formable}
            onClick={() => switchTo(option)}
            className={cn("rounded px-2 py-0.5 font-medium text-zinc-700 aria-pressed:bg-zinc-900 aria-pressed:text-white disabled:cursor-not-allowed disabled:opacity-40 dark:text-zinc-300 dark:aria-pressed:bg-zinc-100 dark:aria-pressed:text-zinc-900", focusRing)}
          >
            {option === "form" ? "Form" : "JSON"}
          </button>
        ))}
      </div>
      {!support.formable ? (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          This schema is edited as JSON: the form cannot show {support.reasons.slice(0, 3).join("; ")}
          {support.reasons.length > 3 ? ` and ${support.reasons.length - 3} more` : ""}.
        </p>
      ) : null}
      {unplaced.length > 0 ? (
        <ul role="alert" aria-label="Problems" className="space-y-0.5 rounded-md border border-red-200 bg-red-50 p-2 text-xs text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-300">
          {unplaced.map((issue, index) => (
            <li key={index}><code className="font-mono">{issue.path || "/"}</code> {issue.message}</li>
          ))}
        </ul>
      ) : null}
      {mode === "form" ? (
        <Form
          ref={formRef}
          schema={rjsfSchema}
          formData={value}
          validator={validator}
          templates={templates}
          widgets={widgets}
          idPrefix={idPrefix}
          disabled={disabled}
          extraErrors={extraErrors}
          showErrorList={false}
          noHtml5Validate
          focusOnFirstError
          liveValidate={submitted ? "onChange" : undefined}
          transformErrors={transformErrors}
          onChange={(event) => onChange(event.formData)}
          onError={() => setSubmitted(true)}
          onSubmit={(event) => {
            setSubmitted(true);
            onSubmit?.(event.formData);
          }}
        >
          {footer ?? <></>}
        </Form>
      ) : (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            submitJson();
          }}
        >
          <JsonEditor id={`${idPrefix}-json`} label="Value (JSON)" value={jsonText} onChange={onJsonChange} error={jsonError} disabled={disabled} description="Edit the value as JSON; it is checked against the schema before it is sent." />
          {footer}
        </form>
      )}
    </div>
  );
}
