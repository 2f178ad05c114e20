import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { SETTING_NAMES } from '../../src/config.js';

// Docker cannot run on this machine, so the deployment files are validated by parsing them.
const root = new URL('../../deploy/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, root), 'utf8');
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is untyped by nature
type Doc = Record<string, any>;
const k8s: Doc[] = readdirSync(new URL('k8s/', root))
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => parseAllDocuments(read(`k8s/${f}`)).map((d) => d.toJS() as Doc));
const byKind = (kind: string, name?: string) =>
  k8s.filter((d) => d.kind === kind && (name === undefined || d.metadata.name === name));
const settings = new Set<string>(SETTING_NAMES);

test('Dockerfile is multi-stage, runs as non-root and serves on 8000', () => {
  const df = read('Dockerfile');
  assert.ok((df.match(/^FROM /gm) ?? []).length >= 2, 'multi-stage');
  const user = df.match(/^USER (\S+)/m);
  assert.ok(user && !/^(root|0)(:|$)/.test(user[1]!), 'non-root USER');
  assert.match(df, /^EXPOSE 8000$/m);
  assert.match(df, /ENTRYPOINT \["node", "bin\/matchcast.js"\]/);
});

test('API Deployment has the liveness probe of spec §4.1', () => {
  const [api] = byKind('Deployment', 'matchcast-api');
  const c = api!.spec.template.spec.containers[0];
  assert.deepEqual(c.livenessProbe, {
    httpGet: { path: '/healthcheck/', port: 8000 },
    initialDelaySeconds: 10,
    periodSeconds: 15,
    failureThreshold: 3,
  });
  // Readiness is the additive GET /readyz, apart from the spec's liveness probe.
  assert.equal(c.readinessProbe?.httpGet?.path, '/readyz');
  assert.equal(c.ports[0].containerPort, 8000);
  assert.equal(api!.spec.template.spec.securityContext.runAsNonRoot, true);
});

test('worker Deployment, pipeline CronJob, Secret and rate-limited Ingress exist and agree', () => {
  const [worker] = byKind('Deployment', 'matchcast-worker');
  assert.deepEqual(worker!.spec.template.spec.containers[0].args.slice(0, 1), ['worker']);
  const [cron] = byKind('CronJob');
  assert.deepEqual(cron!.spec.jobTemplate.spec.template.spec.containers[0].args, ['pipeline', 'run']);
  const [secret] = byKind('Secret');
  assert.ok('API_KEY' in secret!.stringData);
  const [ingress] = byKind('Ingress');
  const ann = ingress!.metadata.annotations as Record<string, string>;
  assert.ok(ann['nginx.ingress.kubernetes.io/limit-rps'], 'rate limit');
  assert.ok(ann['nginx.ingress.kubernetes.io/limit-connections'], 'connection limit');
  const backend = ingress!.spec.rules[0].http.paths[0].backend.service;
  const [svc] = byKind('Service', backend.name);
  assert.equal(svc!.spec.ports.find((p: Doc) => p.port === backend.port.number).targetPort, 8000);
});

test('every env name in the manifests and compose file is a real setting', () => {
  const names = new Set<string>();
  for (const d of byKind('ConfigMap')) for (const k of Object.keys(d.data)) names.add(k);
  for (const d of byKind('Secret')) for (const k of Object.keys(d.stringData)) names.add(k);
  const compose = parseAllDocuments(read('docker-compose.yml'), { merge: true })[0]!.toJS() as Doc;
  for (const svc of ['api', 'worker', 'pipeline', 'bootstrap']) {
    for (const k of Object.keys(compose.services[svc].environment)) names.add(k);
  }
  for (const n of names) assert.ok(settings.has(n), `${n} is not read by src/config.ts`);
  assert.ok(
    names.has('API_KEY') && names.has('REDIS_URL') && names.has('DATABASE_URL') && names.has('S3_ENDPOINT'),
  );
});

test('compose file has api, worker, redis, postgres, an S3 store and the pipeline job', () => {
  const compose = parseAllDocuments(read('docker-compose.yml'), { merge: true })[0]!.toJS() as Doc;
  for (const s of ['api', 'worker', 'redis', 'postgres', 'minio', 'pipeline'])
    assert.ok(compose.services[s], s);
  assert.deepEqual(compose.services.pipeline.command, ['pipeline', 'run']);
  assert.deepEqual(compose.services.api.ports, ['8000:8000']);
});

test('an empty stack is bootstrapped before anything serves (compose and Kubernetes)', () => {
  const compose = parseAllDocuments(read('docker-compose.yml'), { merge: true })[0]!.toJS() as Doc;
  assert.equal(compose.services.bootstrap.command[0], 'bootstrap');
  assert.equal(compose.services.bootstrap.profiles, undefined, 'runs on a plain `docker compose up`');
  for (const svc of ['api', 'worker'])
    assert.deepEqual(compose.services[svc].depends_on.bootstrap, {
      condition: 'service_completed_successfully',
    });
  const [job] = byKind('Job', 'matchcast-bootstrap');
  const pod = job!.spec.template.spec;
  assert.equal(pod.containers[0].args[0], 'bootstrap');
  assert.equal(pod.restartPolicy, 'Never');
  assert.ok(job!.spec.backoffLimit >= 1, 'retried while PostgreSQL or the store comes up');
  // Same settings as the pipeline it stands in for.
  const [cron] = byKind('CronJob');
  assert.deepEqual(
    pod.containers[0].envFrom,
    cron!.spec.jobTemplate.spec.template.spec.containers[0].envFrom,
  );
});

test('the image and `npm start` give glibc the same malloc tunables (resident memory, docs/benchmarks.md)', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const fromStart = /GLIBC_TUNABLES=\$\{GLIBC_TUNABLES:-([^}]+)\}/.exec(pkg.scripts.start)?.[1];
  const fromImage = /^ENV GLIBC_TUNABLES=(\S+)$/m.exec(read('Dockerfile'))?.[1];
  assert.ok(fromStart, 'npm start sets GLIBC_TUNABLES unless the caller already did');
  assert.equal(fromImage, fromStart);
  assert.match(fromStart, /glibc\.malloc\.trim_threshold=\d+/);
});
