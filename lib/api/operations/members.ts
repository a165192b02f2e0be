import { defineOperation } from "@/lib/api/operation";
import { dateTime, nullable, pageOf, pageQuery, uuid } from "@/lib/api/operations/common";

const memberParams = { userId: { kind: "uuid", description: "The member's user id." } } as const;
const roles = ["admin", "member", "viewer"] as const;

const member = {
  type: "object",
  required: ["id", "email", "name", "role", "status", "reviewerLevel", "createdAt"],
  properties: {
    id: uuid,
    email: { type: "string" },
    name: { type: "string" },
    role: { enum: roles },
    status: { enum: ["active", "deactivated"], description: "A deactivated member cannot sign in; their API keys were revoked when they were deactivated." },
    reviewerLevel: nullable({ type: "string" }),
    createdAt: dateTime,
  },
} as const;

export const listMembersOperation = defineOperation({
  operationId: "listMembers",
  method: "GET",
  path: "/v1/members",
  tag: "Tenancy",
  summary: "List the tenant's members (people), oldest first",
  description: "Any credential not narrowed to a project. Service accounts are not members (they act through keys only).",
  auth: "key",
  query: { ...pageQuery },
  responses: { 200: { description: "A page of members.", schema: pageOf(member) } },
  errors: ["bad-input", "unknown-field", "permission-denied"],
});

export const inviteMemberOperation = defineOperation({
  operationId: "inviteMember",
  method: "POST",
  path: "/v1/members",
  tag: "Tenancy",
  summary: "Invite a person: they sign in with the email and the initial password (tenant admins)",
  description: "The password is stored as a scrypt hash and never returned. An email that exists on the server → 409 member-email-taken.",
  auth: "key",
  idempotent: true,
  body: {
    validation: "schema",
    schema: {
      type: "object",
      required: ["email", "role", "password"],
      additionalProperties: false,
      properties: {
        email: { type: "string", format: "email", minLength: 3, maxLength: 320 },
        name: { type: "string", minLength: 1, maxLength: 200, description: "Shown in the console; default the part of the email before @." },
        role: { enum: roles },
        password: { type: "string", minLength: 12, maxLength: 1024, description: "The initial password, at least 12 characters; tell it to the person." },
      },
    },
  },
  responses: { 201: { description: "The new member.", schema: member } },
  errors: ["bad-input", "unknown-field", "permission-denied", "member-email-taken"],
});

export const setMemberRoleOperation = defineOperation({
  operationId: "setMemberRole",
  method: "POST",
  path: "/v1/members/{userId}/role",
  tag: "Tenancy",
  summary: "Change a member's role (tenant admins; not one's own)",
  auth: "key",
  idempotent: true,
  params: memberParams,
  body: { validation: "schema", schema: { type: "object", required: ["role"], additionalProperties: false, properties: { role: { enum: roles } } } },
  responses: { 200: { description: "The member.", schema: member } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});

export const deactivateMemberOperation = defineOperation({
  operationId: "deactivateMember",
  method: "POST",
  path: "/v1/members/{userId}/deactivate",
  tag: "Tenancy",
  summary: "Deactivate a member: no more sign-in, sessions refused, API keys revoked (tenant admins; not oneself)",
  auth: "key",
  idempotent: true,
  params: memberParams,
  body: { validation: "schema", optional: true, schema: { type: "object", additionalProperties: false, properties: {} } },
  responses: { 200: { description: "The member, deactivated.", schema: member } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});

export const reactivateMemberOperation = defineOperation({
  operationId: "reactivateMember",
  method: "POST",
  path: "/v1/members/{userId}/reactivate",
  tag: "Tenancy",
  summary: "Reactivate a member: they may sign in again (revoked keys stay revoked; tenant admins)",
  auth: "key",
  idempotent: true,
  params: memberParams,
  body: { validation: "schema", optional: true, schema: { type: "object", additionalProperties: false, properties: {} } },
  responses: { 200: { description: "The member, active.", schema: member } },
  errors: ["bad-input", "unknown-field", "not-found", "permission-denied"],
});
