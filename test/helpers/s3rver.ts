import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Config, parseConfig } from '../../src/config.js';
import { type ConditionalPutFault, startConditionalProxy } from './s3-conditional-proxy.js';

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverCtor = new (options: Record<string, unknown>) => S3rverInstance;

/** A running s3rver (S3-compatible test server) in its own temp folder. */
export interface TestS3Server {
  /** e.g. `http://127.0.0.1:40123`: s3rver behind a proxy that adds S3's conditional writes. */
  endpoint: string;
  /** s3rver itself, without conditional writes (to test that the driver refuses such a server). */
  rawEndpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Another proxy in front of the same s3rver, injecting `fault` into conditional PUTs; `fired` counts them by kind. */
  faultyEndpoint(
    fault: ConditionalPutFault,
    holdMs?: number,
  ): Promise<{ endpoint: string; fired: Record<string, number> }>;
  stop(): Promise<void>;
}

/**
 * Starts s3rver on a free port (port 0) in a fresh temp folder, behind the conditional-write proxy
 * (see s3-conditional-proxy.ts); `stop()` closes both and removes the folder.
 */
export async function startS3rver(): Promise<TestS3Server> {
  const directory = await mkdtemp(path.join(tmpdir(), 'mc-s3rver-'));
  // s3rver ships no type declarations; a computed specifier keeps the compiler from looking for them.
  const specifier = 's3rver';
  const { default: S3rver } = (await import(specifier)) as { default: S3rverCtor };
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  const proxy = await startConditionalProxy(port);
  const faulty: Array<Awaited<ReturnType<typeof startConditionalProxy>>> = [];
  return {
    endpoint: proxy.endpoint,
    rawEndpoint: `http://127.0.0.1:${port}`,
    // s3rver accepts these default credentials (it does not verify signatures).
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    async faultyEndpoint(fault, holdMs) {
      const p = await startConditionalProxy(port, { fault, holdMs });
      faulty.push(p);
      return { endpoint: p.endpoint, fired: p.fired };
    },
    async stop() {
      for (const p of faulty) await p.close();
      await proxy.close();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** Settings whose S3 endpoint refuses every connection (port 9, discard): an object store that is down. */
export function unreachableS3Config(): Config {
  return parseConfig({ S3_ENDPOINT: 'http://127.0.0.1:9', S3_ACCESS_KEY_ID: 'x', S3_SECRET_ACCESS_KEY: 'y' });
}
