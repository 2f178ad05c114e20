// The object store: the ObjectStore port, its factory (folder store or S3, picked from the settings),
// key rules, parquet and signed links.
export { contentTypeForKey } from './content-type.js';
export { createObjectStore } from './create-object-store.js';
export { validateKey } from './keys.js';
export type { ObjectInfo, ObjectStore, PutOptions, StoredObject } from './object-store.js';
export {
  type ParquetColumn,
  type ParquetRow,
  parquetFile,
  parquetSchemaElement,
  readColumnByColumn,
  readParquet,
  readParquetColumns,
  writeParquet,
  writeParquetColumns,
} from './parquet.js';
export { resolveUrlSigningSecret, verifySignedUrl } from './signed-url.js';
