// A view-builder thread for tests whose every build fails: views served anyway came from elsewhere.
import { parentPort } from 'node:worker_threads';
import { serveBuilds } from '../../src/serving/view-wire.js';

serveBuilds(parentPort!, async () => {
  throw new Error('test: this builder builds nothing');
});
