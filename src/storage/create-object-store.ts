import path from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { FsObjectStore } from './fs-object-store.js';
import type { ObjectStore } from './object-store.js';
import { S3ObjectStore } from './s3-object-store.js';
import { resolveUrlSigningSecret } from './signed-url.js';

/** S3 when `S3_ENDPOINT` is set, else the folder store under `<DATA_DIR>/objects` (links: `GET /files/…`). */
export function createObjectStore(config: Config, log?: Logger): ObjectStore {
  if (config.s3Endpoint) {
    log?.info({ endpoint: config.s3Endpoint, bucketPrefix: config.s3BucketPrefix }, 'object store: S3');
    return new S3ObjectStore({
      endpoint: config.s3Endpoint,
      region: config.s3Region,
      accessKeyId: config.s3AccessKeyId,
      secretAccessKey: config.s3SecretAccessKey,
      bucketPrefix: config.s3BucketPrefix,
      forcePathStyle: config.s3ForcePathStyle,
      log,
    });
  }
  const root = path.join(config.dataDir, 'objects');
  log?.info({ root }, 'object store: folder');
  return new FsObjectStore({
    root,
    publicBaseUrl: config.publicBaseUrl,
    urlSigningSecret: resolveUrlSigningSecret(config),
  });
}
