export * from './object-store.js';
export * from './parquet.js';
