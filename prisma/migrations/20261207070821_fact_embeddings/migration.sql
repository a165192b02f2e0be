-- AlterTable
ALTER TABLE "MemoryFact" ADD COLUMN     "embedAfter" TIMESTAMPTZ(3),
ADD COLUMN     "embedAttempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "embedError" TEXT;

-- CreateTable
CREATE TABLE "FactEmbedding" (
    "factId" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "projectId" UUID NOT NULL,
    "providerId" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "dimensions" INTEGER NOT NULL,
    "vector" REAL[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FactEmbedding_pkey" PRIMARY KEY ("factId","providerId","model")
);

-- CreateIndex
CREATE INDEX "FactEmbedding_tenantId_projectId_providerId_model_idx" ON "FactEmbedding"("tenantId", "projectId", "providerId", "model");

-- AddForeignKey
ALTER TABLE "FactEmbedding" ADD CONSTRAINT "FactEmbedding_factId_fkey" FOREIGN KEY ("factId") REFERENCES "MemoryFact"("id") ON DELETE CASCADE ON UPDATE CASCADE;
