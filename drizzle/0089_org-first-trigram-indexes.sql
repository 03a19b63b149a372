-- The trigram indexes of one organisation's searches start with the organisation (decision 177):
-- btree_gin gives uuid a GIN operator class (PGlite: @electric-sql/pglite/contrib/btree_gin).
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
DROP INDEX "contacts_search_trgm_idx";--> statement-breakpoint
DROP INDEX "messages_inbox_search_trgm_idx";--> statement-breakpoint
CREATE INDEX "contacts_search_trgm_idx" ON "contacts" USING gin ("organization_id","search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "messages_inbox_search_trgm_idx" ON "messages" USING gin ("organization_id",lower("body") gin_trgm_ops) WHERE contact_id is not null and (direction = 'inbound' or source = 'inbox');