import type { Operation } from "@/lib/api/operation";
import * as agents from "@/lib/api/operations/agents";
import * as audit from "@/lib/api/operations/audit";
import * as connections from "@/lib/api/operations/connections";
import * as approvals from "@/lib/api/operations/approvals";
import * as conversations from "@/lib/api/operations/conversations";
import * as guardrails from "@/lib/api/operations/guardrails";
import * as identity from "@/lib/api/operations/identity";
import * as mcp from "@/lib/api/operations/mcp";
import * as members from "@/lib/api/operations/members";
import * as memory from "@/lib/api/operations/memory";
import * as notifications from "@/lib/api/operations/notifications";
import * as openai from "@/lib/api/operations/openai";
import * as providers from "@/lib/api/operations/providers";
import * as runs from "@/lib/api/operations/runs";
import * as secrets from "@/lib/api/operations/secrets";
import * as system from "@/lib/api/operations/system";
import * as tools from "@/lib/api/operations/tools";
import * as toolsets from "@/lib/api/operations/toolsets";
import * as triggers from "@/lib/api/operations/triggers";

/** Every operation the server serves: the OpenAPI document is generated from this list. */
export const allOperations: Operation[] = [system, identity, tools, agents, guardrails, providers, mcp, toolsets, secrets, members, memory, conversations, runs, approvals, triggers, connections, notifications, audit, openai]
  .flatMap((group) => Object.values(group) as Operation[])
  .filter((value) => typeof value === "object" && value !== null && "operationId" in value);
