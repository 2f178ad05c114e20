import type { FastifyInstance } from 'fastify';
import { backtestSummary } from '../../analytics/index.js';
import { BacktestSummary, EXAMPLE_BACKTEST, respond } from '../../schemas/index.js';
import type { AppContext } from '../context.js';
import { analystData } from './analyst-data.js';

/**
 * `GET /monitoring/backtest`: the walk-forward backtest of the published run in figures (line
 * comparisons with paired bootstrap intervals, reliability, bets with CLV, ROI and drawdown, profit
 * over time), computed from the rows `GET /predict/export/backtest|bets` serve. Meaningful from the
 * first start: it needs no served history.
 */
export async function monitoringBacktestRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  let memo: { data: unknown; summary: BacktestSummary } | null = null;
  // Computed in the background once the app is ready, so the first visitor does not wait for it;
  // closing waits for it, so that its process is gone before the database and store close. Not
  // during a replay: each release publishes a run, so a warmed copy would be stale within seconds
  // and only hold memory.
  let warming: Promise<unknown> = Promise.resolve();
  app.addHook('onReady', async () => {
    if (ctx.clock?.simulated) return;
    warming = analystData(ctx).catch((err: unknown) =>
      ctx.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'analyst rows not computed'),
    );
  });
  app.addHook('onClose', async () => {
    await warming;
  });
  app.get(
    '/monitoring/backtest',
    {
      schema: {
        tags: ['monitoring'],
        summary:
          'Walk-forward backtest: log loss and RPS against the opening and closing lines per season and region (paired bootstrap), reliability, bets with closing-line value, ROI and drawdown',
        response: {
          200: respond(BacktestSummary, 'The backtest figures of the published run', [EXAMPLE_BACKTEST]),
        },
      },
    },
    async () => {
      const data = await analystData(ctx);
      if (memo?.data !== data) memo = { data, summary: backtestSummary(data) };
      return memo.summary;
    },
  );
}
