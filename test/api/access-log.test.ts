// The access-log thread: the same lines as the logger path, each request exactly once — when the
// thread keeps up, when it falls a full ring behind, when it fails, and when the process exits
// before it has written what it was handed.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import pino from 'pino';
import { type AccessBatch, loggerAccessLog, threadAccessLog } from '../../src/api/plugins/access-log.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const dir = await mkdtemp(path.join(tmpdir(), 'mc-access-log-'));
after(() => rm(dir, { recursive: true, force: true }));

type Line = Record<string, unknown>;

function memoryDestination(): { write(s: string): void; lines: Line[] } {
  const lines: Line[] = [];
  return {
    lines,
    write(s: string) {
      for (const l of s.split('\n')) if (l) lines.push(JSON.parse(l));
    },
  };
}

function parseLines(text: string): Line[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

function batch(turn: number, n: number, time = 1_000 + turn): AccessBatch {
  const ids = Array.from({ length: n }, (_, i) => `t${turn}-r${i}`);
  return {
    time,
    ids,
    methods: ids.map((_, i) => (i % 2 ? 'POST' : 'GET')),
    routes: ids.map((_, i) => (i % 3 ? '/predict/precomputed/{match_id}' : 'unmatched')),
    statuses: ids.map((_, i) => (i % 3 ? 200 : 404)),
    elapsed: ids.map((_, i) => i + 0.125),
  };
}

/** A file the thread writes to, and its lines once the log is closed. */
function fileTarget(name: string): { fd: number; read(): Line[] } {
  const file = path.join(dir, name);
  const fd = openSync(file, 'w');
  return {
    fd,
    read() {
      closeSync(fd);
      return parseLines(readFileSync(file, 'utf8'));
    },
  };
}

test('the thread writes the lines the logger path writes, with the turn time, in order', async () => {
  const target = fileTarget('same.log');
  const main = memoryDestination();
  const exitListeners = process.listenerCount('exit');
  const log = pino({ name: 'matchcast', level: 'info' }, main);
  const access = threadAccessLog(log, { fd: target.fd });
  const turns = [batch(0, 3), batch(1, 1), batch(2, 5)];
  for (const b of turns) access.write(b);
  await access.close();
  assert.equal(process.listenerCount('exit'), exitListeners, 'close() leaves no exit listener');
  const threadLines = target.read();
  assert.equal(main.lines.length, 0, 'a thread that keeps up leaves nothing to the main thread');

  const reference = memoryDestination();
  const inline = loggerAccessLog(pino({ name: 'matchcast', level: 'info' }, reference));
  for (const b of turns) inline.write(b);
  const strip = ({ time: _t, ...rest }: Line) => rest;
  assert.deepEqual(threadLines.map(strip), reference.lines.map(strip), 'same fields, same order');
  assert.deepEqual(
    threadLines.map((l) => Object.keys(l)),
    reference.lines.map((l) => Object.keys(l)),
    'same key order',
  );
  assert.deepEqual(
    threadLines.map((l) => l.time),
    turns.flatMap((b) => b.ids.map(() => b.time)),
  );
  assert.equal(threadLines[0]!.msg, 'request');
  assert.equal(threadLines[0]!.pid, process.pid);
});

test('a thread a full queue behind: the main thread writes the rest, every request exactly once', async () => {
  const target = fileTarget('ring.log');
  const main = memoryDestination();
  const access = threadAccessLog(pino({ level: 'info' }, main), { fd: target.fd, slots: 2 });
  // One synchronous loop: the thread (still loading pino) cannot take 2000 turns as they come.
  const turns = Array.from({ length: 2000 }, (_, t) => batch(t, 3, 1));
  for (const b of turns) access.write(b);
  await access.close();
  const threadLines = target.read();
  const ids = [...threadLines, ...main.lines].map((l) => l.request_id as string);
  assert.equal(ids.length, 6000, 'no request lost or written twice');
  assert.deepEqual(new Set(ids), new Set(turns.flatMap((b) => b.ids)));
  assert.ok(main.lines.length > 0, 'the main thread wrote the turns the thread could not take');
});

test('a failing thread: its turns and every later one are written by the main thread', async () => {
  const main = memoryDestination();
  const exitListeners = process.listenerCount('exit');
  // A descriptor that is not open: the thread's first write fails.
  const access = threadAccessLog(pino({ level: 'info' }, main), { fd: 987_654 });
  access.write(batch(0, 2));
  for (let i = 0; i < 200 && !main.lines.some((l) => l.level === 40); i++)
    await new Promise((r) => setTimeout(r, 10));
  access.write(batch(1, 2));
  await access.close();
  assert.ok(
    main.lines.some((l) => l.level === 40 && /access-log thread failed/.test(String(l.msg))),
    'the failure is logged',
  );
  const ids = main.lines.filter((l) => l.msg === 'request').map((l) => l.request_id);
  assert.deepEqual(ids, ['t0-r0', 't0-r1', 't1-r0', 't1-r1']);
  assert.equal(process.listenerCount('exit'), exitListeners, 'no exit listener left behind');
});

/** Writes a child module: a stdout logger `log`, `threadAccessLog`, a `turn(t, n)` batch maker, then `body`. */
async function childScript(name: string, body: string[]): Promise<string> {
  const script = path.join(dir, name);
  await writeFile(
    script,
    [
      `import { createLogger } from ${JSON.stringify(path.join(ROOT, 'src/logger.ts'))};`,
      `import { threadAccessLog } from ${JSON.stringify(path.join(ROOT, 'src/api/plugins/access-log.ts'))};`,
      "const log = createLogger('info');",
      "const turn = (t, n) => { const ids = Array.from({ length: n }, (_, i) => 't' + t + '-r' + i); return { time: t, ids, methods: ids.map(() => 'GET'), routes: ids.map(() => '/x'), statuses: ids.map(() => 200), elapsed: ids.map(() => 1) }; };",
      ...body,
    ].join('\n'),
  );
  return script;
}

/** Runs a {@link childScript} to its end; returns its stdout. */
async function runChild(name: string, body: string[], timeout = 60_000): Promise<string> {
  const script = await childScript(name, body);
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, timeout });
  return stdout;
}

/**
 * Runs a {@link childScript} (with `access = threadAccessLog(log)`) in a child whose stdout is a pipe the parent stops reading for
 * `stallMs` at first and then reads in bursts, so that writers meet a full pipe; returns stdout.
 */
async function piped(name: string, body: string[], stallMs: number): Promise<string> {
  const script = await childScript(name, ['const access = threadAccessLog(log);', ...body]);
  // Through `cat`, so that the child's stdout is a real pipe (spawn alone gives it a socket).
  const command = `set -o pipefail; ${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(script)} | cat`;
  // Its own process group: a timeout ends node and cat, not only bash.
  const child = spawn('bash', ['-c', command], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => {
    chunks.push(c);
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), 1);
  });
  child.stdout.pause();
  const stall = setTimeout(() => child.stdout.resume(), stallMs);
  const timer = setTimeout(killGroup, 120_000);
  const code = await new Promise((resolve) => child.once('close', resolve)).finally(() => {
    clearTimeout(stall);
    clearTimeout(timer);
    killGroup();
  });
  assert.equal(code, 0);
  return Buffer.concat(chunks).toString('utf8');
}

test('exit waits for the batch the thread is writing into a full pipe', async () => {
  const out = await piped(
    'exit-busy.mts',
    [
      'access.write(turn(0, 1));',
      // Warm: the thread has written the first turn; then a big one, and exit while it is being written.
      'await new Promise((r) => setTimeout(r, 1000));',
      'access.write(turn(1, 20000));',
      'await new Promise((r) => setTimeout(r, 50));',
      'process.exit(0);',
    ],
    1500,
  );
  const ids = parseLines(out).map((l) => l.request_id);
  assert.equal(ids.length, 20_001, 'every request once');
  assert.equal(new Set(ids).size, 20_001, 'none twice');
});

test('lines of the main thread and of the access-log thread never tear each other on a pipe', async () => {
  const out = await piped(
    'interleave.mts',
    [
      "const pad = 'x'.repeat(300);",
      'for (let t = 0; t < 40; t++) {',
      '  access.write(turn(t, 300));',
      "  for (let i = 0; i < 300; i++) log.info({ t, i, pad }, 'main');",
      '  await new Promise((r) => setImmediate(r));',
      '}',
      'await access.close();',
    ],
    300,
  );
  const lines = out.split('\n').filter(Boolean);
  const torn = lines.filter((l) => {
    try {
      JSON.parse(l);
      return false;
    } catch {
      return true;
    }
  });
  assert.deepEqual(torn.slice(0, 3), [], `${torn.length} torn lines`);
  const parsed = lines.map((l) => JSON.parse(l) as Line);
  assert.equal(parsed.filter((l) => l.msg === 'request').length, 40 * 300);
  assert.equal(parsed.filter((l) => l.msg === 'main').length, 40 * 300);
});

test('a process that exits right after handing turns over still writes each of them once', async () => {
  const stdout = await runChild('exit.mts', [
    'const access = threadAccessLog(log);',
    'for (let t = 0; t < 300; t++) access.write(turn(t, 4));',
    'process.exit(0);',
  ]);
  const ids = parseLines(stdout).map((l) => l.request_id);
  assert.equal(ids.length, 1200, 'every request once');
  assert.equal(new Set(ids).size, 1200, 'none twice');
});

test('a thread that fails mid-write hands its batch back: exit does not wait for it', async () => {
  const started = Date.now();
  const stdout = await runChild('dead-exit.mts', [
    // A descriptor that is not open: the thread fails on its first write.
    'const access = threadAccessLog(log, { fd: 987654 });',
    "access.write({ ...turn(0, 2), ids: ['d0', 'd1'] });",
    // Exit while the thread's failure is on its way to the main thread.
    'const until = Date.now() + 300;',
    'while (Date.now() < until) {}',
    'process.exit(0);',
  ]);
  const ids = parseLines(stdout)
    .filter((l) => l.msg === 'request')
    .map((l) => l.request_id);
  assert.deepEqual(ids, ['d0', 'd1']);
  assert.ok(Date.now() - started < 5_000, `exit took ${Date.now() - started} ms`);
});

test('the app built with accessLogThread logs each request once on standard output', async () => {
  const stdout = await runChild(
    'app.mts',
    [
      `import { embeddedApp } from ${JSON.stringify(path.join(ROOT, 'test/helpers/app-context.ts'))};`,
      'const { app } = await embeddedApp({}, { log, app: { logRequests: true, accessLogThread: true } });',
      'for (let i = 0; i < 25; i++) {',
      "  await app.inject({ method: 'GET', url: i % 5 ? '/healthcheck/' : '/nope', headers: { 'x-request-id': 'app-' + i } });",
      '}',
      'await app.close();',
    ],
    120_000,
  );
  const all = parseLines(stdout);
  assert.ok(!all.some((l) => /access-log thread failed/.test(String(l.msg))), 'the thread wrote them');
  const lines = all.filter((l) => l.msg === 'request');
  assert.deepEqual(
    lines.map((l) => [l.request_id, l.route, l.status]).sort(),
    Array.from({ length: 25 }, (_, i) => [
      `app-${i}`,
      i % 5 ? '/healthcheck/' : 'unmatched',
      i % 5 ? 200 : 404,
    ]).sort(),
  );
});
