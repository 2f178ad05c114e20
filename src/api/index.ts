export { buildApp } from './app.js';
export type { AppContext } from './context.js';
export { isProtectedPath, keysMatch } from './plugins/auth.js';
