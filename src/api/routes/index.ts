import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { serviceRoutes } from './service.js';

/** A route module: registers its routes on the app with the shared context. */
export type RouteModule = (app: FastifyInstance, ctx: AppContext) => Promise<void>;

/** Every route module, in registration order. */
export const ROUTE_MODULES: RouteModule[] = [serviceRoutes];
