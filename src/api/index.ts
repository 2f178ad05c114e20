export { buildApp } from './app.js';
export type { AdminJob, AdminJobKind, AdminJobs, AppContext } from './context.js';
export { isProtectedPath, keysMatch } from './plugins/auth.js';
