ALTER TABLE "automation_rules" ADD COLUMN "from_ad" text;--> statement-breakpoint
ALTER TABLE "ad_referrals" ADD COLUMN "picture_file_id" uuid;--> statement-breakpoint
ALTER TABLE "ad_referrals" ADD CONSTRAINT "ad_referrals_picture_file_id_media_files_id_fk" FOREIGN KEY ("picture_file_id") REFERENCES "public"."media_files"("id") ON DELETE set null ON UPDATE no action;