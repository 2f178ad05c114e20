// The view-builder thread of the serving views: decodes, validates and serialises published
// artifacts off the serving event loop (src/serving/view-builder.ts starts it).
import { parentPort } from 'node:worker_threads';
import { serveBuilds } from './view-wire.js';

serveBuilds(parentPort!);
