// A view-builder thread for tests: the real builder, except that a predictions candidate holding
// the bytes `crash-the-builder` crashes the thread (an uncaught error) and `exit-the-builder` ends
// it as a kill would, while the build is running.
import { parentPort } from 'node:worker_threads';
import { buildViews } from '../../src/serving/view-build.js';
import { serveBuilds } from '../../src/serving/view-wire.js';

serveBuilds(parentPort!, async (job) => {
  const next = job.predictions.next;
  const text = next ? Buffer.from(next.buffer, next.byteOffset, next.byteLength).toString('latin1') : '';
  if (text.includes('crash-the-builder')) {
    setImmediate(() => {
      throw new Error('test: the builder crashed');
    });
    return new Promise(() => {});
  }
  if (text.includes('exit-the-builder')) {
    setTimeout(() => process.exit(137), 10);
    return new Promise(() => {});
  }
  return buildViews(job);
});
