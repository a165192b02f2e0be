-- CreateTable
CREATE TABLE "Approval" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "projectId" UUID NOT NULL,
    "runId" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "callId" TEXT NOT NULL,
    "agentId" TEXT,
    "agentVersion" TEXT,
    "conversationId" UUID,
    "toolId" TEXT,
    "toolVersion" TEXT,
    "reason" TEXT NOT NULL,
    "argumentsHash" TEXT,
    "arguments" JSONB,
    "editedArguments" JSONB,
    "effects" JSONB NOT NULL DEFAULT '[]',
    "origin" JSONB,
    "startedBy" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "requestedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "decidedBy" UUID,
    "decidedAt" TIMESTAMPTZ(3),
    "rationale" TEXT,
    "grantId" UUID,

    CONSTRAINT "Approval_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApprovalGrant" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "projectId" UUID NOT NULL,
    "agentId" TEXT NOT NULL,
    "toolId" TEXT NOT NULL,
    "condition" JSONB,
    "approvalId" UUID,
    "createdBy" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMPTZ(3),
    "revokedBy" UUID,

    CONSTRAINT "ApprovalGrant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApprovalEvent" (
    "tenantId" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "approvalId" UUID NOT NULL,
    "projectId" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApprovalEvent_pkey" PRIMARY KEY ("tenantId","seq")
);

-- CreateTable
CREATE TABLE "ApprovalEventCounter" (
    "tenantId" UUID NOT NULL,
    "lastSeq" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "ApprovalEventCounter_pkey" PRIMARY KEY ("tenantId")
);

-- CreateTable
CREATE TABLE "ToolWait" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "projectId" UUID NOT NULL,
    "runId" UUID NOT NULL,
    "callId" TEXT NOT NULL,
    "toolId" TEXT NOT NULL,
    "toolVersion" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "output" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "completedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ToolWait_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Approval_tenantId_status_requestedAt_idx" ON "Approval"("tenantId", "status", "requestedAt");

-- CreateIndex
CREATE INDEX "Approval_status_expiresAt_idx" ON "Approval"("status", "expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "Approval_runId_callId_key" ON "Approval"("runId", "callId");

-- CreateIndex
CREATE INDEX "ApprovalGrant_tenantId_projectId_agentId_toolId_idx" ON "ApprovalGrant"("tenantId", "projectId", "agentId", "toolId");

-- CreateIndex
CREATE INDEX "ToolWait_status_expiresAt_idx" ON "ToolWait"("status", "expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "ToolWait_runId_callId_key" ON "ToolWait"("runId", "callId");
