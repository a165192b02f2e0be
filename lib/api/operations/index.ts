import type { Operation } from "@/lib/api/operation";
import * as agents from "@/lib/api/operations/agents";
import * as approvals from "@/lib/api/operations/approvals";
import * as conversations from "@/lib/api/operations/conversations";
import * as guardrails from "@/lib/api/operations/guardrails";
import * as identity from "@/lib/api/operations/identity";
import * as mcp from "@/lib/api/operations/mcp";
import * as memory from "@/lib/api/operations/memory";
import * as providers from "@/lib/api/operations/providers";
import * as runs from "@/lib/api/operations/runs";
import * as secrets from "@/lib/api/operations/secrets";
import * as system from "@/lib/api/operations/system";
import * as tools from "@/lib/api/operations/tools";

/** Every operation the server serves: the OpenAPI document is generated from this list. */
export const allOperations: Operation[] = [system, identity, tools, agents, guardrails, providers, mcp, secrets, memory, conversations, runs, approvals]
  .flatMap((group) => Object.values(group) as Operation[])
  .filter((value) => typeof value === "object" && value !== null && "operationId" in value);
