import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { explainRoutes } from './explain.js';
import { exportsRoutes } from './exports.js';
import { filesRoutes } from './files.js';
import { liveRoutes } from './live.js';
import { livescoresRoutes } from './livescores.js';
import { marketsRoutes } from './markets.js';
import { monitoringBacktestRoutes } from './monitoring-backtest.js';
import { monitoringPerformanceRoutes } from './monitoring-performance.js';
import { monitoringReportsRoutes } from './monitoring-reports.js';
import { precomputedRoutes } from './precomputed.js';
import { serviceRoutes } from './service.js';
import { tasksRoutes } from './tasks.js';
import { uiRoutes } from './ui.js';

/** A route module: registers its routes on the app with the shared context. */
type RouteModule = (app: FastifyInstance, ctx: AppContext) => Promise<void>;

/** Every route module, in registration order. */
export const ROUTE_MODULES: RouteModule[] = [
  serviceRoutes,
  livescoresRoutes,
  // Static /predict/* routes before the parametric live route (find-my-way prefers static anyway).
  precomputedRoutes,
  exportsRoutes,
  explainRoutes,
  marketsRoutes,
  liveRoutes,
  tasksRoutes,
  monitoringReportsRoutes,
  monitoringPerformanceRoutes,
  monitoringBacktestRoutes,
  filesRoutes,
  uiRoutes,
];
