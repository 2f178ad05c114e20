import { isUtf8 } from 'node:buffer';
import type { IngestEncoding } from './types.js';

/** A file that cannot be decoded: the first bad byte, 0-based, and its 1-based line. */
interface DecodeFailure {
  ok: false;
  line: number;
  byte: number;
  reason: string;
}

/** Offset of the first ill-formed UTF-8 byte, or -1: where the first U+FFFD the bytes do not spell sits. */
function firstInvalidUtf8(buf: Buffer): number {
  const text = buf.toString('utf8');
  let offset = 0;
  let from = 0;
  for (let j = text.indexOf('\uFFFD'); j >= 0; j = text.indexOf('\uFFFD', j + 1)) {
    offset += Buffer.byteLength(text.slice(from, j));
    from = j;
    if (buf[offset] !== 0xef || buf[offset + 1] !== 0xbf || buf[offset + 2] !== 0xbd) return offset;
  }
  return -1;
}

function lineOf(buf: Uint8Array, offset: number): number {
  return buf.subarray(0, offset).filter((b) => b === 0x0a).length + 1;
}

/** Strict `utf-8` (Latin-1 read as UTF-8 would mangle team names): refused with its line and byte. */
export function decodeText(
  buf: Buffer,
  encoding: IngestEncoding = 'utf-8',
): { ok: true; text: string } | DecodeFailure {
  const nul = buf.indexOf(0);
  const reason = 'NUL byte: not a text file (UTF-16 or binary?)';
  if (nul >= 0) return { ok: false, line: lineOf(buf, nul), byte: nul, reason };
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
