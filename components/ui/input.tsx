import type { InputHTMLAttributes, LabelHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";
import type { Issue } from "@/lib/client/api";
import { issuesExactlyAt } from "@/lib/client/issues";
import { cn } from "@/components/ui/cn";
import { FieldError } from "@/components/ui/field-error";

const control =
  "block w-full rounded-md border border-zinc-300 bg-white px-3 py-1.5 text-sm text-zinc-900 shadow-sm placeholder:text-zinc-500 focus-visible:border-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-indigo-600 disabled:opacity-60 aria-invalid:border-red-600 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:placeholder:text-zinc-400";

export function Input({ className, ...props }: InputHTMLAttributes<HTMLInputElement>) {
  return <input className={cn(control, "h-9", className)} {...props} />;
}

export function Textarea({ className, ...props }: TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return <textarea className={cn(control, className)} {...props} />;
}

export function Select({ className, ...props }: SelectHTMLAttributes<HTMLSelectElement>) {
  return <select className={cn(control, "h-9 pr-8", className)} {...props} />;
}

export function Label({ className, ...props }: LabelHTMLAttributes<HTMLLabelElement>) {
  return <label className={cn("block text-sm font-medium text-zinc-800 dark:text-zinc-200", className)} {...props} />;
}

/**
 * A labelled control with its hint and the API's issues at `path`. `children` receives the ids to wire:
 * `(props) => <Input {...props} />` gets `id`, `aria-describedby` and `aria-invalid`.
 */
export function Field({ id, label, hint, issues, path, children, className }: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  issues?: readonly Issue[];
  path?: string;
  className?: string;
  children: (props: { id: string; "aria-describedby"?: string; "aria-invalid"?: boolean }) => ReactNode;
}) {
  const invalid = path !== undefined && issuesExactlyAt(issues, path).length > 0;
  const describedBy = [hint ? `${id}-hint` : null, invalid ? `${id}-issues` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={className}>
      <Label htmlFor={id}>{label}</Label>
      <div className="mt-1">{children({ id, "aria-describedby": describedBy, "aria-invalid": invalid || undefined })}</div>
      {hint && (
        <p id={`${id}-hint`} className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
          {hint}
        </p>
      )}
      {path !== undefined && <FieldError id={`${id}-issues`} issues={issues} path={path} />}
    </div>
  );
}
