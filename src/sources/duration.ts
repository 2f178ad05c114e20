import { MatchcastError } from '../domain/index.js';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `15m`, `6h`, `1d` (or a sum like `1h30m`) as ms; at least 10 s. */
export function parseEvery(raw: string): number {
  const parts = [...raw.trim().matchAll(/(\d+)\s*([smhd])/g)];
  const whole = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || whole.replace(/\s/g, '') !== raw.replace(/\s/g, ''))
    throw new MatchcastError(
      'MC_ERR_VALIDATION',
      `--every expects a period like 15m, 6h or 1d, got "${raw}"`,
    );
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * UNITS[p[2]], 0);
  if (ms < 10_000)
    throw new MatchcastError('MC_ERR_VALIDATION', `--every must be at least 10s, got "${raw}"`);
  return ms;
}

/** ms as the shortest of `15m`, `6h`, `1d30m`… */
export function formatEvery(ms: number): string {
  let rest = Math.round(ms / 1000) * 1000;
  let out = '';
  for (const [u, size] of Object.entries(UNITS).reverse()) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${u}`;
      rest %= size;
    }
  }
  return out || '0s';
}
