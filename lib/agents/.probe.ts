import { validateAgentDefinition } from "./validate-agent";
const base = { id: "a", version: "1.0.0", name: "A", instructions: "x", capabilities: [{}], tools: [], retrieval: [], guardrails: [] };
const cases: any[] = [
 { type: "object", properties: { ok: { type: "boolean" }, reason: { type: "string" } }, required: ["ok"], if: { properties: { ok: { const: false } } }, then: { properties: { reason: true }, required: ["reason"] } },
 { type: "object", required: ["x"] },
 { type: ["string", "null"] },
 { type: "object", properties: { at: { type: "string", format: "date-time" }, score: { type: "number" } }, required: ["at"] },
];
for (const c of cases) { const r = validateAgentDefinition({ ...base, output: { schema: c } }); console.log(r.ok, r.ok ? "" : JSON.stringify(r.issues)); }
