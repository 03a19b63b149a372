CREATE TABLE "media_uploads" (
	"media_file_id" uuid NOT NULL,
	"phone_number_id" text NOT NULL,
	"meta_media_id" text NOT NULL,
	"uploaded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "media_uploads_media_file_id_phone_number_id_pk" PRIMARY KEY("media_file_id","phone_number_id")
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "media_file_id" uuid;--> statement-breakpoint
ALTER TABLE "media_uploads" ADD CONSTRAINT "media_uploads_media_file_id_media_files_id_fk" FOREIGN KEY ("media_file_id") REFERENCES "public"."media_files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_media_file_id_media_files_id_fk" FOREIGN KEY ("media_file_id") REFERENCES "public"."media_files"("id") ON DELETE set null ON UPDATE no action;