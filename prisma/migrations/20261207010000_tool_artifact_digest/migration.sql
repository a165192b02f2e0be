-- AlterTable
ALTER TABLE "CatalogVersion" ADD COLUMN     "artifactDigest" TEXT;
