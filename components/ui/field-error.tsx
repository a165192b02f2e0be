import type { Issue } from "@/lib/client/api";
import { issuesExactlyAt } from "@/lib/client/issues";
import { cn } from "@/components/ui/cn";

/**
 * The API's issues for the field at `path` (a JSON pointer), shown beside it. Give the field
 * `aria-describedby={id}` and `aria-invalid` so a screen reader reads them with it.
 */
export function FieldError({ issues, path, id, className }: { issues: readonly Issue[] | undefined; path: string; id?: string; className?: string }) {
  const mine = issuesExactlyAt(issues, path);
  if (mine.length === 0) return null;
  return (
    <div id={id} className={cn("mt-1 text-sm text-red-700 dark:text-red-300", className)} data-issue-path={path}>
      {mine.map((issue, index) => (
        <p key={index}>{issue.message}</p>
      ))}
    </div>
  );
}
