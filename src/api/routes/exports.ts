import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { csvChunks, EXPORT_COLUMNS, exportRows, parquetChunks } from '../../analytics/index.js';
import { MatchcastError } from '../../domain/index.js';
import {
  EXAMPLE_EXPORT_CSV,
  ExportFile,
  ExportParams,
  ExportQuery,
  respond,
  route,
} from '../../schemas/index.js';
import type { AppContext } from '../context.js';
import { analystData } from './analyst-data.js';

/** A `from`/`to` query value as an instant (a bare date is 00:00 UTC). */
function instant(name: string, v: string | undefined): Date | undefined {
  if (v === undefined) return undefined;
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
  if (Number.isNaN(d.getTime())) throw new MatchcastError('MC_ERR_VALIDATION', `\`${name}\` is not a date`);
  return d;
}

/** `GET /predict/export/{dataset}`, streamed in chunks so a large export never sits whole in memory. */
export async function exportsRoutes(root: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/predict/export/:dataset',
    route('analytics', {
      summary: 'Predictions, backtest rows or simulated bets as a CSV or Parquet file (streamed)',
      params: ExportParams,
      querystring: ExportQuery,
      produces: ['text/csv', 'application/vnd.apache.parquet'],
      response: { 200: respond(ExportFile, 'The rows, kick-off order', [EXAMPLE_EXPORT_CSV]) },
    }),
    async (request, reply) => {
      const { dataset } = request.params;
      const q = request.query;
      const format = q.format ?? 'csv';
      const filter = { from: instant('from', q.from), to: instant('to', q.to), region: q.region };
      const data = await analystData(ctx);
      const rows = exportRows(data, dataset, filter);
      const columns = EXPORT_COLUMNS[dataset];
      const name = `matchcast-${dataset}${data.runId ? `-${data.runId}` : ''}.${format}`;
      const chunks =
        format === 'csv'
          ? csvChunks(columns, rows)
          : parquetChunks(columns, rows, {
              dataset,
              run_id: data.runId ?? '',
              demargin: 'power',
              edge_threshold: String(data.edgeThreshold),
            });
      reply
        .header(
          'content-type',
          format === 'csv' ? 'text/csv; charset=utf-8' : 'application/vnd.apache.parquet',
        )
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('x-matchcast-rows', String(rows.length))
        .header('cache-control', 'private, no-store');
      // A stream bypasses the response serializer; the schema only documents the file.
      return reply.send(Readable.from(chunks, { objectMode: false }) as unknown as string);
    },
  );
}
