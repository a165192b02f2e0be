import { Badge } from "@/components/ui";
import { approvalInWords, effectInWords } from "@/components/catalog/behaviour";

/** The behaviour badges of a tool: read-only or mutating, its approvals in words, pauses, outside data, effects. */
export function ToolBadges(props: {
  mutating?: boolean;
  needsApprovalWhenUnattended?: boolean;
  pauses?: boolean;
  resultIsOutsideData?: boolean;
  transport?: string;
  effects?: Array<{ kind: string; resource?: string }>;
  className?: string;
}) {
  const { mutating, needsApprovalWhenUnattended, pauses, resultIsOutsideData, transport, effects = [], className } = props;
  const readOnly = mutating === false;
  return (
    <ul aria-label="Behaviour" className={`flex flex-wrap gap-1 ${className ?? ""}`}>
      <li><Badge tone={readOnly ? "success" : "warning"}>{readOnly ? "read-only" : "mutating"}</Badge></li>
      {approvalInWords({ mutating, needsApprovalWhenUnattended }).map((words) => (
        <li key={words}><Badge tone={words.startsWith("passes") ? "neutral" : "accent"}>{words}</Badge></li>
      ))}
      {pauses ? <li><Badge tone="accent">pauses</Badge></li> : null}
      {resultIsOutsideData ? <li><Badge tone="warning">outside data</Badge></li> : null}
      {transport ? <li><Badge>{transport}</Badge></li> : null}
      {effects.map((effect, index) => (
        <li key={`${effect.kind}-${effect.resource ?? ""}-${index}`}><Badge tone="neutral" className="font-mono">{effectInWords(effect)}</Badge></li>
      ))}
    </ul>
  );
}
