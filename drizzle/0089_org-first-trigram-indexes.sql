-- The trigram indexes of one organisation's searches start with the organisation (decision 177), where
-- the server has btree_gin (uuid's GIN operator class): PostgreSQL's contrib package. PGlite is opened
-- without it (decision 179: loaded, it left a text search spinning inside the database) and keeps the
-- indexes of migrations 0022 and 0029, which answer the same queries.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'btree_gin') THEN
    CREATE EXTENSION IF NOT EXISTS btree_gin;
    DROP INDEX "contacts_search_trgm_idx";
    DROP INDEX "messages_inbox_search_trgm_idx";
    CREATE INDEX "contacts_search_trgm_idx" ON "contacts" USING gin ("organization_id","search_text" gin_trgm_ops);
    CREATE INDEX "messages_inbox_search_trgm_idx" ON "messages" USING gin ("organization_id",lower("body") gin_trgm_ops) WHERE contact_id is not null and (direction = 'inbound' or source = 'inbox');
  END IF;
END $$;
