-- AlterTable
ALTER TABLE "CatalogEntry" ADD COLUMN     "onApprovalExpired" TEXT;

-- AlterTable
ALTER TABLE "Approval" ADD COLUMN     "onExpired" TEXT NOT NULL DEFAULT 'reject';
