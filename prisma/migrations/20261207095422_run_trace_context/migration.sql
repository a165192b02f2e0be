-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "traceContext" JSONB;
