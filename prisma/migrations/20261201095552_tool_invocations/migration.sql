-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "arguments" JSONB,
ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'agent-turn',
ADD COLUMN     "toolId" TEXT,
ADD COLUMN     "toolVersion" TEXT,
ALTER COLUMN "agentId" DROP NOT NULL,
ALTER COLUMN "agentVersion" DROP NOT NULL,
ALTER COLUMN "userMessage" DROP NOT NULL,
ALTER COLUMN "parameters" DROP NOT NULL;

-- CreateIndex
CREATE INDEX "Run_tenantId_toolId_createdAt_idx" ON "Run"("tenantId", "toolId", "createdAt");
