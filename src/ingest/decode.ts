import { isUtf8 } from 'node:buffer';
import type { IngestEncoding } from './types.js';

/** A file that cannot be decoded: the first bad byte, 0-based, and its 1-based line. */
interface DecodeFailure {
  ok: false;
  line: number;
  byte: number;
  reason: string;
}

/**
 * Offset of the first byte that is not part of a well-formed UTF-8 sequence (overlongs, surrogates and
 * code points above U+10FFFF included), or -1. Only called once `isUtf8` said no, so speed matters little.
 */
function firstInvalidUtf8(buf: Uint8Array): number {
  let i = 0;
  while (i < buf.length) {
    const b = buf[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    let cp: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
      cp = b & 0x0f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
      cp = b & 0x07;
    } else return i;
    if (i + need >= buf.length) return i;
    for (let k = 1; k <= need; k++) {
      const c = buf[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

function lineOf(buf: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (buf[i] === 0x0a) line++;
  return line;
}

/**
 * Decodes a source file. `utf-8` is strict: an invalid sequence refuses the whole file with its line
 * and byte (a Latin-1 file read as UTF-8 would otherwise create teams with mangled names), and so does
 * a NUL byte (UTF-16 or a binary file). `latin1` is ISO-8859-1; `windows-1252` is its superset with
 * € and typographic quotes in 0x80–0x9F. A UTF-8 byte-order mark is dropped by the CSV reader.
 */
export function decodeText(
  buf: Buffer,
  encoding: IngestEncoding = 'utf-8',
): { ok: true; text: string } | DecodeFailure {
  const nul = buf.indexOf(0);
  if (nul >= 0) {
    return {
      ok: false,
      line: lineOf(buf, nul),
      byte: nul,
      reason: 'NUL byte: not a text file (UTF-16 or binary?)',
    };
  }
  if (encoding === 'latin1') return { ok: true, text: buf.toString('latin1') };
  if (encoding === 'windows-1252') return { ok: true, text: decodeWindows1252(buf) };
  if (isUtf8(buf)) return { ok: true, text: buf.toString('utf8') };
  const at = firstInvalidUtf8(buf);
  const byte = at < 0 ? buf.length : at;
  return {
    ok: false,
    line: lineOf(buf, byte),
    byte,
    reason: `not valid UTF-8 at byte ${byte} (0x${(buf[byte] ?? 0).toString(16).padStart(2, '0')}); declare the file's encoding with --encoding latin1 or windows-1252`,
  };
}

/** Windows-1252 code points of bytes 0x80–0x9F (the five undefined ones map to the C1 controls, as in WHATWG). */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8d,
  0x017d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a,
  0x0153, 0x9d, 0x017e, 0x0178,
];

/** Node's TextDecoder treats `windows-1252` as ISO-8859-1 (no € in 0x80): decode it by table. */
function decodeWindows1252(buf: Buffer): string {
  const latin = buf.toString('latin1');
  if (!/[\x80-\x9f]/.test(latin)) return latin;
  return latin.replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(CP1252_HIGH[c.charCodeAt(0) - 0x80]));
}
