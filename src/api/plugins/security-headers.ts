import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/** No inline or foreign script anywhere: swagger-ui and the bundled /ui/ both work under it. */
const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  objectSrc: ["'none'"],
  frameAncestors: ["'none'"],
  upgradeInsecureRequests: null,
};

/** helmet's headers, computed once: running helmet per request costs most of a precomputed lookup. */
export function securityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string | number) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  helmet({
    contentSecurityPolicy: { directives: CSP_DIRECTIVES },
    crossOriginResourcePolicy: { policy: 'same-origin' },
  })({} as IncomingMessage, res as unknown as ServerResponse, () => undefined);
  return headers;
}

/** The OWASP REST set: helmet's document headers only govern how a browser renders a page. */
export function apiSecurityHeaders(full: Record<string, string> = securityHeaders()): Record<string, string> {
  return {
    'content-security-policy': "default-src 'none';frame-ancestors 'none'",
    'cross-origin-resource-policy': full['cross-origin-resource-policy'] as string,
    'referrer-policy': full['referrer-policy'] as string,
    'strict-transport-security': full['strict-transport-security'] as string,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
}

/** Paths whose responses are documents a browser renders (docs, the UI, HTML reports): full helmet set. */
export function isDocumentPath(url: string): boolean {
  return url.startsWith('/docs') || url.startsWith('/ui') || url.startsWith('/files/');
}
