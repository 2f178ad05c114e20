// A worker process for the tests: `node --import tsx test/worker/run-worker.ts [--concurrency N]`.
import { workerCommand } from '../../src/cli/worker.js';

workerCommand(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`worker failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
