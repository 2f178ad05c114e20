import type { FastifyInstance } from 'fastify';
import { BacktestSummary, EXAMPLE_BACKTEST, respond, route } from '../../schemas/index.js';
import type { AppContext } from '../context.js';
import { publishedBacktestSummary } from './analyst-data.js';

/** `GET /monitoring/backtest`: the published run's walk-forward figures, from the rows the exports serve. */
export async function monitoringBacktestRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // Warmed once the app is ready (closing waits, so its process ends before the database closes); not
  // in a replay, whose releases publish a run every few seconds.
  let warming: Promise<unknown> = Promise.resolve();
  app.addHook('onReady', async () => {
    if (ctx.clock?.simulated) return;
    warming = publishedBacktestSummary(ctx).catch((err: unknown) =>
      ctx.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'backtest figures not computed',
      ),
    );
  });
  app.addHook('onClose', async () => {
    await warming;
  });
  app.get(
    '/monitoring/backtest',
    route('monitoring', {
      summary:
        'Walk-forward backtest: log loss and RPS against the opening and closing lines per season and region (paired bootstrap), reliability, bets with closing-line value, ROI and drawdown',
      response: {
        200: respond(BacktestSummary, 'The backtest figures of the published run', [EXAMPLE_BACKTEST]),
      },
    }),
    () => publishedBacktestSummary(ctx),
  );
}
