import path from "node:path";
import { env } from "../config/env";
import { processState } from "../process-state";
import { checkedKey, isStorageKey, organisationPrefix, StorageNotFoundError } from "./keys";
import { localFileStorage } from "./local";
import { s3FileStorage, type S3StorageConfig } from "./s3";
import type { FileStorage } from "./types";

export { checkedKey, isStorageKey, localFileStorage, organisationPrefix, s3FileStorage, StorageNotFoundError };
export type { S3StorageConfig };
export * from "./types";

const state = processState<{ shared?: { env: object; config: string; storage: FileStorage }; replaced?: FileStorage }>(
  "file-storage",
  () => ({}),
);

/** Puts another storage in place of the configured one (tests: a temporary folder, a sandbox bucket); undefined restores it. */
export function setFileStorage(storage: FileStorage | undefined) {
  state.replaced = storage;
}

/** The S3 settings of the configuration, or null when files stay in the local folder. */
export function s3ConfigOf(config: ReturnType<typeof env>): S3StorageConfig | null {
  if (config.STORAGE !== "s3" || !config.S3_BUCKET) return null;
  return {
    endpoint: config.S3_ENDPOINT,
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
    credentials:
      config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
        : undefined,
    forcePathStyle: config.S3_FORCE_PATH_STYLE ?? false,
    checksums: config.s3Checksums,
    downloads: config.STORAGE_DOWNLOADS,
    presignSeconds: config.S3_PRESIGN_SECONDS,
    timeoutMs: config.S3_TIMEOUT_MS,
  };
}

/** The storage configured from the environment: `${DATA_DIR}/media`, or the bucket (one client per process). */
export function fileStorage(): FileStorage {
  if (state.replaced) return state.replaced;
  const config = env();
  // The same configuration object: the same storage, without working it out again (a call per download).
  if (state.shared?.env === config) return state.shared.storage;
  const s3 = s3ConfigOf(config);
  const identity = s3 ? JSON.stringify(s3) : path.resolve(config.DATA_DIR, "media");
  if (state.shared?.config !== identity)
    state.shared = { env: config, config: identity, storage: s3 ? s3FileStorage(s3) : localFileStorage(identity) };
  else state.shared.env = config;
  return state.shared.storage;
}
