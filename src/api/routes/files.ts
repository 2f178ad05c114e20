import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { BUCKETS, type Bucket, isMatchcastError, MatchcastError } from '../../domain/index.js';
import {
  contentTypeForKey,
  resolveUrlSigningSecret,
  validateKey,
  verifySignedUrl,
} from '../../storage/index.js';
import type { AppContext } from '../context.js';

const forbidden = () => new MatchcastError('MC_ERR_FORBIDDEN');

/** HTML reports (inline script and style) are sandboxed: a report's script never acts as the API's origin. */
const HTML_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; sandbox allow-scripts";

/** `GET /files/:bucket/*` through a signed link; every refusal is the same 403, which tells nothing. */
export async function filesRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get(
    '/files/:bucket/*',
    {
      schema: {
        hide: true,
        params: Type.Object({ bucket: Type.String(), '*': Type.String() }),
        querystring: Type.Object(
          { expires: Type.Optional(Type.String()), signature: Type.Optional(Type.String()) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const { bucket, '*': key } = request.params as { bucket: string; '*': string };
      const { expires, signature } = request.query as { expires?: string; signature?: string };
      if (!(BUCKETS as readonly string[]).includes(bucket)) throw forbidden();
      try {
        validateKey(key);
      } catch (err) {
        if (isMatchcastError(err, 'MC_ERR_INVALID_KEY')) throw forbidden();
        throw err;
      }
      const verdict = verifySignedUrl({
        bucket,
        key,
        expires,
        signature,
        secret: resolveUrlSigningSecret(ctx.config),
      });
      if (!verdict.ok) throw forbidden();

      const object = await ctx.store.get(bucket as Bucket, key);
      if (!object) throw new MatchcastError('MC_ERR_NOT_FOUND');
      const remaining = Math.max(0, Math.floor((verdict.expiresAt.getTime() - Date.now()) / 1000));
      const contentType = contentTypeForKey(key);
      reply
        .header('content-type', contentType)
        .header('cache-control', `private, max-age=${remaining}`)
        .header('etag', `"${object.etag}"`)
        .header('last-modified', object.lastModified.toUTCString());
      if (contentType.startsWith('text/html')) reply.header('content-security-policy', HTML_CSP);
      return reply.send(object.body);
    },
  );
}
