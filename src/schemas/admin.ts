import { type Static, Type } from 'typebox';
import { DateTime, Nullable } from './common.js';

/** Body of `POST /admin/jobs`: a `matchcast ingest` or `matchcast pipeline` command line. */
export const AdminJobRequest = Type.Object(
  {
    kind: Type.Union([Type.Literal('ingest'), Type.Literal('pipeline')], { description: 'the command' }),
    argv: Type.Array(Type.String({ maxLength: 4096 }), {
      maxItems: 64,
      description: 'its arguments, as on the command line (paths absolute)',
    }),
  },
  { additionalProperties: false },
);
export type AdminJobRequest = Static<typeof AdminJobRequest>;

/** Path parameter of `GET /admin/jobs/{id}`. */
export const AdminJobParams = Type.Object(
  { id: Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$', description: 'job id' }) },
  { additionalProperties: false },
);
export type AdminJobParams = Static<typeof AdminJobParams>;

/** Query of `GET /admin/jobs/{id}`: how much output the caller has already read. */
export const AdminJobQuery = Type.Object(
  {
    out_offset: Type.Optional(
      Type.Integer({ minimum: 0, description: 'characters of stdout already read; default 0' }),
    ),
    err_offset: Type.Optional(
      Type.Integer({ minimum: 0, description: 'characters of stderr already read; default 0' }),
    ),
  },
  { additionalProperties: false },
);
export type AdminJobQuery = Static<typeof AdminJobQuery>;

/** A job handed to the running embedded server, with its output from the offsets on. */
export const AdminJobView = Type.Object(
  {
    id: Type.String(),
    kind: Type.String({ description: '`ingest` or `pipeline`' }),
    argv: Type.Array(Type.String()),
    origin: Type.String({ description: '`cli`, `schedule` (PIPELINE_SCHEDULE) or `replay`' }),
    state: Type.Union([
      Type.Literal('queued'),
      Type.Literal('running'),
      Type.Literal('done'),
      Type.Literal('failed'),
    ]),
    exit_code: Nullable(Type.Integer(), 'the command exit code once finished'),
    stdout: Type.String({ description: 'stdout from `out_offset` on' }),
    stderr: Type.String({ description: 'stderr from `err_offset` on' }),
    stdout_length: Type.Integer({ description: 'characters of stdout so far (the next `out_offset`)' }),
    stderr_length: Type.Integer({ description: 'characters of stderr so far (the next `err_offset`)' }),
    created_at: DateTime('when the job was queued'),
    started_at: Nullable(DateTime(), 'when it started'),
    finished_at: Nullable(DateTime(), 'when it finished'),
  },
  { additionalProperties: false },
);
export type AdminJobView = Static<typeof AdminJobView>;

export const EXAMPLE_ADMIN_JOB: AdminJobView = {
  id: '0b6f3a52-8a8e-4d8b-9a57-2f0f5f0c6a11',
  kind: 'pipeline',
  argv: ['run'],
  origin: 'cli',
  state: 'done',
  exit_code: 0,
  stdout: '',
  stderr: '✓ features/build 812 ms rows=37481\n',
  stdout_length: 0,
  stderr_length: 37,
  created_at: '2024-05-10T03:10:00.000Z',
  started_at: '2024-05-10T03:10:00.012Z',
  finished_at: '2024-05-10T03:10:41.507Z',
};
