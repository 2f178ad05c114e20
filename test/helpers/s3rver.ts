import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Config, parseConfig } from '../../src/config.js';

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverCtor = new (options: Record<string, unknown>) => S3rverInstance;

/** A running s3rver (S3-compatible test server) in its own temp folder. */
export interface TestS3Server {
  /** e.g. `http://127.0.0.1:40123`. */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

/** Starts s3rver on a free port (port 0) in a fresh temp folder; `stop()` closes it and removes the folder. */
export async function startS3rver(): Promise<TestS3Server> {
  const directory = await mkdtemp(path.join(tmpdir(), 'mc-s3rver-'));
  // s3rver ships no type declarations; a computed specifier keeps the compiler from looking for them.
  const specifier = 's3rver';
  const { default: S3rver } = (await import(specifier)) as { default: S3rverCtor };
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    // s3rver accepts these default credentials (it does not verify signatures).
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    async stop() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** Settings whose S3 endpoint refuses every connection (port 9, discard): an object store that is down. */
export function unreachableS3Config(): Config {
  return parseConfig({ S3_ENDPOINT: 'http://127.0.0.1:9', S3_ACCESS_KEY_ID: 'x', S3_SECRET_ACCESS_KEY: 'y' });
}
