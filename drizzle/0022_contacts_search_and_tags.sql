CREATE TABLE "contact_tags" (
	"organization_id" uuid NOT NULL,
	"tag" text NOT NULL,
	CONSTRAINT "contact_tags_organization_id_tag_pk" PRIMARY KEY("organization_id","tag")
);
--> statement-breakpoint
DROP INDEX "contacts_name_trgm_idx";--> statement-breakpoint
DROP INDEX "contacts_phone_trgm_idx";--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower(name || ' ' || coalesce(phone, '') || ' ' || jsonb_path_query_array(attributes, '$.*')::text)) STORED;--> statement-breakpoint
ALTER TABLE "contact_tags" ADD CONSTRAINT "contact_tags_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contacts_search_trgm_idx" ON "contacts" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
-- The tag catalog follows the contacts: one INSERT per statement from its transition table, tags in
-- order so two writers taking the same new tags wait on each other instead of deadlocking.
CREATE FUNCTION "contact_tags_catalog"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "contact_tags" ("organization_id", "tag")
    SELECT DISTINCT n."organization_id", t.tag FROM new_rows n, unnest(n."tags") AS t(tag)
    ORDER BY 1, 2
    ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "contacts_tags_catalog_insert" AFTER INSERT ON "contacts" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "contact_tags_catalog"();--> statement-breakpoint
CREATE TRIGGER "contacts_tags_catalog_update" AFTER UPDATE ON "contacts" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "contact_tags_catalog"();--> statement-breakpoint
INSERT INTO "contact_tags" ("organization_id", "tag")
  SELECT DISTINCT "organization_id", unnest("tags") FROM "contacts" ON CONFLICT DO NOTHING;
