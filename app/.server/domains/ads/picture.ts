import { rawQuery, type Executor } from "../../infrastructure/db/client";
import { enqueueJob, type Job } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { fileStorage } from "../../infrastructure/storage";
import { AdPictureError, AD_PICTURE_MAX_BYTES, fetchAdPicture } from "../../infrastructure/clients/ad-pictures";

// Not messaging's isUuid: messaging imports this domain (the free entry window), so this one must not import it.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The ad's picture (issue 77): Meta's `thumbnail_url` (else `image_url`) is on its CDN, outside the
 * pages' Content-Security-Policy, so a job fetches it once into Jumbe's storage after the webhook is
 * stored (like customers' media, messaging/inbound-media.ts) and the inbox shows it from there,
 * behind the inbox's permission (/chat/ads/:id/picture). A picture that cannot be fetched (refused,
 * not a picture, too large, or the CDN down through every try) leaves the header without one.
 */

export const AD_PICTURE_QUEUE = "ads.picture";
/** Tries of one fetch; the CDN's temporary errors and network trouble are retried with the queue's backoff. */
export const AD_PICTURE_ATTEMPTS = 4;

/** Queues the fetch of each new referral's picture (in the webhook batch's transaction). */
export async function queueAdPictures(executor: Executor, referrals: readonly { id: string; has_picture: boolean }[]) {
  for (const referral of referrals)
    if (referral.has_picture)
      await enqueueJob(AD_PICTURE_QUEUE, { adReferralId: referral.id }, { executor, uniqueKey: `ad-picture:${referral.id}` });
}

/** The queue's handler: one referral per job (one CDN call and a file write). */
export async function runAdPictureJobs(jobs: Job<{ adReferralId: string }>[]) {
  for (const job of jobs) {
    try {
      await fetchAdPictureOnce(job.payload.adReferralId);
    } catch (error) {
      const permanent = error instanceof AdPictureError && error.permanent;
      if (!permanent && job.attempts < AD_PICTURE_ATTEMPTS) throw error;
      log().warn({ adReferralId: job.payload.adReferralId, err: error }, "ad picture not fetched");
    }
  }
}

async function fetchAdPictureOnce(adReferralId: string) {
  const [referral] = await rawQuery<{
    organization_id: string;
    phone_number_id: string;
    address: string | null;
    picture_file_id: string | null;
  }>(
    `select organization_id, phone_number_id, coalesce(thumbnail_url, image_url) as address, picture_file_id from ad_referrals where id = $1`,
    [adReferralId],
  );
  // Gone (the contact was erased), done already (a job run twice), or nothing to fetch.
  if (!referral?.address || referral.picture_file_id) return;
  const picture = await fetchAdPicture(referral.address);
  const stored = await fileStorage().write([picture.bytes], { maxBytes: AD_PICTURE_MAX_BYTES, organisationId: referral.organization_id });
  let linked = false;
  let fileId: string | undefined;
  try {
    const [file] = await rawQuery<{ id: string }>(
      `insert into media_files (organization_id, direction, mime_type, size, sha256, file_name, storage_key, phone_number_id)
       values ($1, 'inbound', $2, $3, $4, null, $5, $6) returning id`,
      [referral.organization_id, picture.mimeType, stored.size, stored.sha256, stored.key, referral.phone_number_id],
    );
    fileId = file!.id;
    const updated = await rawQuery(`update ad_referrals set picture_file_id = $2 where id = $1 and picture_file_id is null returning id`, [
      adReferralId,
      fileId,
    ]);
    linked = updated.length > 0;
  } finally {
    if (!linked) {
      if (fileId) await rawQuery(`delete from media_files where id = $1`, [fileId]);
      await fileStorage().delete(stored.key);
    }
  }
}

export interface AdPictureFile {
  mimeType: string;
  size: number;
  sha256: string;
  fileName: string | null;
  storageKey: string;
}

/** The picture of one of the organisation's ad referrals (its id), or null: another tenant's, none fetched, not an id. */
export async function adPictureFile(organizationId: string, adReferralId: string): Promise<AdPictureFile | null> {
  if (!UUID.test(adReferralId)) return null;
  const [file] = await rawQuery<{ mime_type: string; size: number; sha256: string; storage_key: string }>(
    `select f.mime_type, f.size, f.sha256, f.storage_key from ad_referrals a
     join media_files f on f.id = a.picture_file_id and f.organization_id = a.organization_id
     where a.organization_id = $1 and a.id = $2`,
    [organizationId, adReferralId],
  );
  return file
    ? { mimeType: file.mime_type, size: Number(file.size), sha256: file.sha256, fileName: null, storageKey: file.storage_key }
    : null;
}
