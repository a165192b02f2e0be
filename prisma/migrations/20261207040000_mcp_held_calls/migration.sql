-- CreateTable
CREATE TABLE "McpHeldCall" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "callerId" TEXT NOT NULL,
    "server" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "argumentsHash" TEXT NOT NULL,
    "runId" UUID NOT NULL,
    "approvalId" UUID NOT NULL,
    "answeredAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "McpHeldCall_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "McpHeldCall_tenantId_callerId_argumentsHash_idx" ON "McpHeldCall"("tenantId", "callerId", "argumentsHash");
