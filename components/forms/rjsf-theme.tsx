"use client";

/**
 * Tailwind templates and widgets for the JSON-Schema form library (@rjsf/core): labels with required marks,
 * descriptions, errors tied to their control (aria-describedby, aria-invalid), nested objects as indented fieldsets,
 * arrays with add / remove / reorder.
 */
import { useCallback, type ChangeEvent, type FocusEvent } from "react";
import {
  ADDITIONAL_PROPERTY_FLAG,
  ariaDescribedByIds,
  buttonId,
  descriptionId,
  enumOptionSelectedValue,
  enumOptionValueDecoder,
  enumOptionValueEncoder,
  errorId,
  getInputProps,
  getOptionValueFormat,
  getTemplate,
  getUiOptions,
  helpId,
  labelValue,
  titleId,
  type ArrayFieldItemButtonsTemplateProps,
  type ArrayFieldItemTemplateProps,
  type ArrayFieldTemplateProps,
  type BaseInputTemplateProps,
  type DescriptionFieldProps,
  type FieldErrorProps,
  type FieldHelpProps,
  type FieldTemplateProps,
  type IconButtonProps,
  type ObjectFieldTemplateProps,
  type RegistryWidgetsType,
  type TemplatesType,
  type TitleFieldProps,
  type ArrayFieldTitleProps,
  type ArrayFieldDescriptionProps,
  type WidgetProps,
  type WrapIfAdditionalTemplateProps,
} from "@rjsf/utils";
import { focusRing } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";

/** The console's control look (components/ui/input.tsx), for the form's inputs, selects and textareas. */
export const inputClass =
  "block w-full rounded-md border border-zinc-300 bg-white px-3 py-1.5 text-sm text-zinc-900 shadow-sm placeholder:text-zinc-500 focus-visible:border-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-60 aria-invalid:border-red-600 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:placeholder:text-zinc-400";

const smallButtonClass = cn(
  "inline-flex h-7 items-center gap-1 rounded-md border border-zinc-300 bg-white px-2 text-xs font-medium text-zinc-700 shadow-sm hover:bg-zinc-50 disabled:cursor-not-allowed disabled:opacity-40 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200 dark:hover:bg-zinc-800",
  focusRing,
);

function RequiredMark() {
  return (
    <>
      <span aria-hidden="true" className="ml-0.5 text-red-600 dark:text-red-400">*</span>
      <span className="sr-only"> (required)</span>
    </>
  );
}

function FieldLabel({ id, label, required }: { id: string; label: string; required?: boolean }) {
  if (!label) return null;
  return (
    <label htmlFor={id} className="block text-sm font-medium text-zinc-800 dark:text-zinc-200">
      {label}
      {required ? <RequiredMark /> : null}
    </label>
  );
}

function FieldTemplate(props: FieldTemplateProps) {
  const { id, label, children, errors, help, description, hidden, required, displayLabel, registry, uiSchema, schema, rawErrors, classNames } = props;
  const uiOptions = getUiOptions(uiSchema);
  const WrapIfAdditionalTemplate = getTemplate("WrapIfAdditionalTemplate", registry, uiOptions);
  if (hidden) return <div className="hidden">{children}</div>;
  const isCheckbox = schema.type === "boolean" || uiOptions.widget === "checkbox";
  const isContainer = schema.type === "object" || schema.type === "array";
  return (
    <WrapIfAdditionalTemplate {...props}>
      <div className={`space-y-1 ${classNames ?? ""}`} data-invalid={rawErrors && rawErrors.length > 0 ? "true" : undefined}>
        {displayLabel && !isCheckbox && !isContainer ? <FieldLabel id={id} label={label} required={required} /> : null}
        {displayLabel && !isContainer && description ? description : null}
        {children}
        {errors}
        {help}
      </div>
    </WrapIfAdditionalTemplate>
  );
}

function WrapIfAdditionalTemplate(props: WrapIfAdditionalTemplateProps) {
  const { id, label, onKeyRenameBlur, onRemoveProperty, readonly, disabled, schema, children, uiSchema, registry, classNames, style } = props;
  const { RemoveButton } = registry.templates.ButtonTemplates;
  if (!(ADDITIONAL_PROPERTY_FLAG in schema)) return <div className={classNames} style={style}>{children}</div>;
  return (
    <div className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)_auto] items-start gap-2" style={style}>
      <div className="space-y-1">
        <label htmlFor={`${id}-key`} className="block text-sm font-medium text-zinc-800 dark:text-zinc-200">Key</label>
        <input id={`${id}-key`} type="text" className={inputClass} defaultValue={label} onBlur={onKeyRenameBlur} disabled={disabled || readonly} />
      </div>
      <div>{children}</div>
      <div className="pt-6">
        <RemoveButton id={buttonId(id, "remove")} className="rjsf-object-property-remove" disabled={disabled || readonly} onClick={onRemoveProperty} uiSchema={uiSchema} registry={registry} title={`Remove ${label}`} />
      </div>
    </div>
  );
}

function DescriptionField({ id, description }: DescriptionFieldProps) {
  if (!description) return null;
  return <p id={id} className="text-xs text-zinc-500 dark:text-zinc-400">{description}</p>;
}

function FieldErrorTemplate({ errors = [], fieldPathId }: FieldErrorProps) {
  const shown = errors.filter(Boolean);
  if (shown.length === 0) return null;
  return (
    <ul id={errorId(fieldPathId)} className="space-y-0.5 text-xs font-medium text-red-700 dark:text-red-400">
      {shown.map((error, index) => <li key={index}>{error}</li>)}
    </ul>
  );
}

function FieldHelpTemplate({ help, fieldPathId }: FieldHelpProps) {
  if (!help) return null;
  return <p id={helpId(fieldPathId)} className="text-xs text-zinc-500 dark:text-zinc-400">{help}</p>;
}

function TitleField({ id, title, required }: TitleFieldProps) {
  return (
    <legend id={id} className="text-sm font-semibold text-zinc-900 dark:text-zinc-100">
      {title}
      {required ? <RequiredMark /> : null}
    </legend>
  );
}

function ObjectFieldTemplate(props: ObjectFieldTemplateProps) {
  const { description, disabled, formData, fieldPathId, onAddProperty, properties, readonly, registry, required, schema, title, uiSchema, optionalDataControl } = props;
  const options = getUiOptions(uiSchema);
  const TitleFieldTemplate = getTemplate("TitleFieldTemplate", registry, options);
  const DescriptionFieldTemplate = getTemplate("DescriptionFieldTemplate", registry, options);
  const { AddButton } = registry.templates.ButtonTemplates;
  if ((schema.oneOf || schema.anyOf) && !schema.properties && properties.length === 0) return null;
  const isRoot = fieldPathId.path.length === 0;
  const expandable = schema.additionalProperties !== undefined && schema.additionalProperties !== false && !readonly && (schema.maxProperties === undefined || Object.keys((formData as object) ?? {}).length < schema.maxProperties);
  return (
    <fieldset id={fieldPathId.$id} className={isRoot ? "space-y-4" : "space-y-3 border-l-2 border-zinc-200 pl-4 dark:border-zinc-700"}>
      {title && !isRoot ? <TitleFieldTemplate id={titleId(fieldPathId)} title={title} required={required} schema={schema} uiSchema={uiSchema} registry={registry} /> : null}
      {description && !isRoot ? <DescriptionFieldTemplate id={descriptionId(fieldPathId)} description={description} schema={schema} uiSchema={uiSchema} registry={registry} /> : null}
      {optionalDataControl}
      {properties.map((property) => (property.hidden ? property.content : <div key={property.name}>{property.content}</div>))}
      {expandable ? (
        <AddButton id={buttonId(fieldPathId, "add")} className="rjsf-object-property-expand" onClick={onAddProperty} disabled={disabled || readonly} uiSchema={uiSchema} registry={registry} title={title ? `Add property to ${title}` : "Add property"} />
      ) : null}
    </fieldset>
  );
}

function ArrayFieldTitleTemplate({ fieldPathId, title, required }: ArrayFieldTitleProps) {
  if (!title) return null;
  return (
    <legend id={titleId(fieldPathId)} className="text-sm font-semibold text-zinc-900 dark:text-zinc-100">
      {title}
      {required ? <RequiredMark /> : null}
    </legend>
  );
}

function ArrayFieldDescriptionTemplate({ fieldPathId, description }: ArrayFieldDescriptionProps) {
  if (!description) return null;
  return <p id={descriptionId(fieldPathId)} className="text-xs text-zinc-500 dark:text-zinc-400">{description}</p>;
}

function ArrayFieldTemplate(props: ArrayFieldTemplateProps) {
  const { canAdd, disabled, fieldPathId, uiSchema, items, onAddClick, readonly, registry, required, schema, title, optionalDataControl } = props;
  const uiOptions = getUiOptions(uiSchema);
  const ArrayFieldTitle = getTemplate("ArrayFieldTitleTemplate", registry, uiOptions);
  const ArrayFieldDescription = getTemplate("ArrayFieldDescriptionTemplate", registry, uiOptions);
  const { AddButton } = registry.templates.ButtonTemplates;
  return (
    <fieldset id={fieldPathId.$id} className="space-y-2 border-l-2 border-zinc-200 pl-4 dark:border-zinc-700">
      <ArrayFieldTitle fieldPathId={fieldPathId} title={uiOptions.title || title} required={required} schema={schema} uiSchema={uiSchema} registry={registry} />
      <ArrayFieldDescription fieldPathId={fieldPathId} description={uiOptions.description || schema.description} schema={schema} uiSchema={uiSchema} registry={registry} />
      {optionalDataControl}
      {items.length === 0 ? <p className="text-xs text-zinc-500 dark:text-zinc-400">No items.</p> : <ol className="space-y-2">{items}</ol>}
      {canAdd ? (
        <AddButton id={buttonId(fieldPathId, "add")} className="rjsf-array-item-add" onClick={onAddClick} disabled={disabled || readonly} uiSchema={uiSchema} registry={registry} title={title ? `Add item to ${title}` : "Add item"} />
      ) : null}
    </fieldset>
  );
}

function ArrayFieldItemTemplate(props: ArrayFieldItemTemplateProps) {
  const { children, buttonsProps, hasToolbar, registry, uiSchema } = props;
  const ButtonsTemplate = getTemplate("ArrayFieldItemButtonsTemplate", registry, getUiOptions(uiSchema));
  return (
    <li className="flex items-start gap-2 rounded-md border border-zinc-200 bg-zinc-50/60 p-2 dark:border-zinc-700 dark:bg-zinc-800/40">
      <div className="min-w-0 flex-1">{children}</div>
      {hasToolbar ? <div className="flex shrink-0 gap-1 pt-0.5"><ButtonsTemplate {...buttonsProps} /></div> : null}
    </li>
  );
}

function ArrayFieldItemButtonsTemplate(props: ArrayFieldItemButtonsTemplateProps) {
  const { disabled, hasCopy, hasMoveDown, hasMoveUp, hasRemove, fieldPathId, onCopyItem, onRemoveItem, onMoveDownItem, onMoveUpItem, readonly, registry, uiSchema, index } = props;
  const { CopyButton, MoveDownButton, MoveUpButton, RemoveButton } = registry.templates.ButtonTemplates;
  const item = `item ${index + 1}`;
  return (
    <>
      {hasMoveUp || hasMoveDown ? <MoveUpButton id={buttonId(fieldPathId, "moveUp")} title={`Move ${item} up`} disabled={disabled || readonly || !hasMoveUp} onClick={onMoveUpItem} uiSchema={uiSchema} registry={registry} /> : null}
      {hasMoveUp || hasMoveDown ? <MoveDownButton id={buttonId(fieldPathId, "moveDown")} title={`Move ${item} down`} disabled={disabled || readonly || !hasMoveDown} onClick={onMoveDownItem} uiSchema={uiSchema} registry={registry} /> : null}
      {hasCopy ? <CopyButton id={buttonId(fieldPathId, "copy")} title={`Copy ${item}`} disabled={disabled || readonly} onClick={onCopyItem} uiSchema={uiSchema} registry={registry} /> : null}
      {hasRemove ? <RemoveButton id={buttonId(fieldPathId, "remove")} title={`Remove ${item}`} disabled={disabled || readonly} onClick={onRemoveItem} uiSchema={uiSchema} registry={registry} /> : null}
    </>
  );
}

function textButton(text: string, fallbackTitle: string) {
  return function TextButton({ title, className, uiSchema, registry, iconType, icon, ...rest }: IconButtonProps) {
    void uiSchema; void registry; void iconType; void icon; void className;
    const name = title || fallbackTitle;
    return (
      <button type="button" {...rest} aria-label={name} title={name} className={smallButtonClass}>
        {text}
      </button>
    );
  };
}

function AddButton({ title, className, uiSchema, registry, iconType, icon, ...rest }: IconButtonProps) {
  void uiSchema; void registry; void iconType; void icon;
  const isProperty = (className ?? "").includes("object-property");
  return (
    <button type="button" {...rest} aria-label={title} className={smallButtonClass}>
      <span aria-hidden="true">+</span> {isProperty ? "Add property" : "Add item"}
    </button>
  );
}

function BaseInputTemplate(props: BaseInputTemplateProps) {
  const { id, htmlName, value, readonly, disabled, autofocus, onBlur, onFocus, onChange, onChangeOverride, options, schema, type, rawErrors, placeholder, required } = props;
  const inputProps = getInputProps(schema, type, options);
  const inputValue = inputProps.type === "number" || inputProps.type === "integer" ? (value || value === 0 ? value : "") : (value ?? "");
  const handleChange = useCallback((event: ChangeEvent<HTMLInputElement>) => onChange(event.target.value === "" ? options.emptyValue : event.target.value), [onChange, options]);
  const handleBlur = useCallback((event: FocusEvent<HTMLInputElement>) => onBlur(id, event.target.value), [onBlur, id]);
  const handleFocus = useCallback((event: FocusEvent<HTMLInputElement>) => onFocus(id, event.target.value), [onFocus, id]);
  return (
    <input
      id={id}
      name={htmlName || id}
      className={inputClass}
      readOnly={readonly}
      disabled={disabled}
      autoFocus={autofocus}
      placeholder={placeholder}
      required={required}
      value={inputValue as string | number}
      {...inputProps}
      onChange={onChangeOverride || handleChange}
      onBlur={handleBlur}
      onFocus={handleFocus}
      aria-invalid={rawErrors && rawErrors.length > 0 ? true : undefined}
      aria-describedby={ariaDescribedByIds(id, !!schema.examples)}
    />
  );
}

function TextareaWidget(props: WidgetProps) {
  const { id, htmlName, options, placeholder, value, required, disabled, readonly, autofocus, onChange, onBlur, onFocus, rawErrors } = props;
  return (
    <textarea
      id={id}
      name={htmlName || id}
      className={`${inputClass} font-mono`}
      value={(value as string) ?? ""}
      placeholder={placeholder}
      required={required}
      disabled={disabled}
      readOnly={readonly}
      autoFocus={autofocus}
      rows={(options.rows as number | undefined) ?? 4}
      onChange={(event) => onChange(event.target.value === "" ? options.emptyValue : event.target.value)}
      onBlur={(event) => onBlur(id, event.target.value)}
      onFocus={(event) => onFocus(id, event.target.value)}
      aria-invalid={rawErrors && rawErrors.length > 0 ? true : undefined}
      aria-describedby={ariaDescribedByIds(id)}
    />
  );
}

function SelectWidget(props: WidgetProps) {
  const { schema, id, htmlName, options, value, required, disabled, readonly, multiple = false, autofocus, onChange, onBlur, onFocus, placeholder, rawErrors } = props;
  const { enumOptions, enumDisabled, emptyValue } = options;
  const format = getOptionValueFormat(options);
  const read = (event: ChangeEvent<HTMLSelectElement> | FocusEvent<HTMLSelectElement>) =>
    multiple ? Array.from(event.target.options).filter((option) => option.selected).map((option) => option.value) : event.target.value;
  const selected = enumOptionSelectedValue(value, enumOptions, multiple, format, multiple ? [] : "");
  const showPlaceholder = !multiple && schema.default === undefined;
  return (
    <select
      id={id}
      name={htmlName || id}
      multiple={multiple}
      className={inputClass}
      value={selected as string | string[]}
      required={required}
      disabled={disabled || readonly}
      autoFocus={autofocus}
      onChange={(event) => onChange(enumOptionValueDecoder(read(event), enumOptions, format, emptyValue))}
      onBlur={(event) => onBlur(id, enumOptionValueDecoder(read(event), enumOptions, format, emptyValue))}
      onFocus={(event) => onFocus(id, enumOptionValueDecoder(read(event), enumOptions, format, emptyValue))}
      aria-invalid={rawErrors && rawErrors.length > 0 ? true : undefined}
      aria-describedby={ariaDescribedByIds(id)}
    >
      {showPlaceholder ? <option value="">{placeholder || "Select…"}</option> : null}
      {(enumOptions ?? []).map(({ value: optionValue, label }, index) => (
        <option key={String(optionValue)} value={enumOptionValueEncoder(optionValue, index, format)} disabled={Array.isArray(enumDisabled) && enumDisabled.includes(optionValue)}>
          {label}
        </option>
      ))}
    </select>
  );
}

function CheckboxWidget(props: WidgetProps) {
  const { schema, id, htmlName, value, disabled, readonly, label, hideLabel, autofocus, onBlur, onFocus, onChange, required, rawErrors, registry, uiSchema, options } = props;
  const DescriptionFieldTemplate = getTemplate("DescriptionFieldTemplate", registry, options);
  const description = options.description ?? schema.description;
  return (
    <div className="space-y-1">
      <label className="inline-flex items-center gap-2 text-sm font-medium text-zinc-800 dark:text-zinc-200">
        <input
          type="checkbox"
          id={id}
          name={htmlName || id}
          checked={value === true}
          disabled={disabled || readonly}
          autoFocus={autofocus}
          className={cn("size-4 rounded border-zinc-300 accent-indigo-600", focusRing)}
          onChange={(event) => onChange(event.target.checked)}
          onBlur={(event) => onBlur(id, event.target.checked)}
          onFocus={(event) => onFocus(id, event.target.checked)}
          aria-invalid={rawErrors && rawErrors.length > 0 ? true : undefined}
          aria-describedby={ariaDescribedByIds(id)}
        />
        {labelValue(<span>{label}{required && schema.const === true ? <RequiredMark /> : null}</span>, hideLabel)}
      </label>
      {!hideLabel && description ? <DescriptionFieldTemplate id={descriptionId(id)} description={description} schema={schema} uiSchema={uiSchema} registry={registry} /> : null}
    </div>
  );
}

export const templates: Partial<Omit<TemplatesType, "ButtonTemplates">> & { ButtonTemplates: Partial<TemplatesType["ButtonTemplates"]> } = {
  FieldTemplate,
  WrapIfAdditionalTemplate,
  DescriptionFieldTemplate: DescriptionField,
  FieldErrorTemplate,
  FieldHelpTemplate,
  TitleFieldTemplate: TitleField,
  ObjectFieldTemplate,
  ArrayFieldTemplate,
  ArrayFieldItemTemplate,
  ArrayFieldItemButtonsTemplate,
  ArrayFieldTitleTemplate,
  ArrayFieldDescriptionTemplate,
  BaseInputTemplate,
  ButtonTemplates: {
    AddButton,
    RemoveButton: textButton("Remove", "Remove"),
    MoveUpButton: textButton("↑", "Move up"),
    MoveDownButton: textButton("↓", "Move down"),
    CopyButton: textButton("Copy", "Copy"),
    SubmitButton: () => null,
  },
};

export const widgets: RegistryWidgetsType = {
  SelectWidget,
  CheckboxWidget,
  TextareaWidget,
};
