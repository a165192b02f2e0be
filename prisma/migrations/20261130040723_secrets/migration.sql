-- CreateTable
CREATE TABLE "Secret" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "ciphertext" TEXT NOT NULL,
    "createdBy" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Secret_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Secret_tenantId_name_idx" ON "Secret"("tenantId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "Secret_tenantId_name_version_key" ON "Secret"("tenantId", "name", "version");
