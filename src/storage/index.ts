export * from './content-type.js';
export * from './create-object-store.js';
export * from './fs-object-store.js';
export * from './keys.js';
export * from './object-store.js';
export * from './parquet.js';
export * from './s3-object-store.js';
export * from './signed-url.js';
