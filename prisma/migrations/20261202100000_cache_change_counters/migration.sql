-- Change counters of what servers cache (lib/services/tenant-generation.ts): a write that can change a cached value
-- advances one once it has committed, and a server reads both before it answers from its cache, so that a write is
-- read on the very next request on any replica. Sequences: advancing one takes no row lock and waits for no flush.
CREATE SEQUENCE "kindgi_access_changes";
CREATE SEQUENCE "kindgi_catalog_changes";
