export { buildApp } from './app.js';
export type { AppContext } from './context.js';
