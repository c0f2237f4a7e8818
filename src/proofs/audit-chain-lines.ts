import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/json-digest.js';

/** The `prev` of a stream's first line: 64 zeros. */
export const CHAIN_START = '0'.repeat(64);

/**
 * One line of a chained audit stream, as exported (one JSON object per line): its place, the hash of the line before it,
 * when, what happened, and its own hash (SHA-256, hex, of the canonical JSON of the other four fields).
 */
export interface AuditChainLine {
  seq: number;
  prev: string;
  time: string;
  event: Record<string, unknown>;
  hash: string;
}

/** The line that follows `prev` (`CHAIN_START` for a stream's first) as number `seq`. */
export function chainLine(seq: number, prev: string, time: string, event: Record<string, unknown>): AuditChainLine {
  return { seq, prev, time, event, hash: lineHash({ seq, prev, time, event }) };
}

/** What `verifyAuditChain` found: every link holds, or the first that does not (1-based line of the text, and why). */
export type AuditChainCheck =
  { valid: true; lines: number; last?: { seq: number; hash: string } } | { valid: false; line: number; seq?: number; reason: string };

/**
 * Checks a chained audit export (JSON Lines, as `ElicitationService.exportAudit` writes it): each line's hash is its
 * own, each `prev` the hash of the line before, each `seq` the one before plus one. The first line's `prev` is taken as
 * given unless `after` (the hash of the line before the export: `CHAIN_START` for an export from a stream's start) says
 * what it must be. Names the first broken link: its line in the text, its `seq` and what is wrong there.
 */
export function verifyAuditChain(jsonl: string, after?: string): AuditChainCheck {
  const texts = jsonl.split('\n');
  if (texts.at(-1) === '') texts.pop();
  let before: { seq: number; hash: string } | undefined;
  for (const [index, text] of texts.entries()) {
    const line = index + 1;
    const parsed = parseLine(text);
    if (typeof parsed === 'string') return { valid: false, line, reason: parsed };
    const { seq } = parsed;
    if (parsed.hash !== lineHash(parsed))
      return { valid: false, line, seq, reason: 'its hash does not match its content (the line was changed)' };
    const expectedPrev = before?.hash ?? after;
    if (expectedPrev !== undefined && parsed.prev !== expectedPrev) {
      return { valid: false, line, seq, reason: 'its prev is not the hash of the line before (a line was changed, left out or put in)' };
    }
    if (before && seq !== before.seq + 1)
      return { valid: false, line, seq, reason: `its seq follows ${before.seq} (a line was left out or put in)` };
    before = { seq, hash: parsed.hash };
  }
  return { valid: true, lines: texts.length, ...(before && { last: before }) };
}

function lineHash(line: Omit<AuditChainLine, 'hash'>): string {
  const { seq, prev, time, event } = line;
  return createHash('sha256').update(canonicalJson({ seq, prev, time, event })).digest('hex');
}

/** A line of the export, or why it is not one. */
function parseLine(text: string): AuditChainLine | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  const line = value as Partial<AuditChainLine> | null;
  if (
    !line ||
    typeof line !== 'object' ||
    !Number.isInteger(line.seq) ||
    typeof line.prev !== 'string' ||
    typeof line.time !== 'string' ||
    typeof line.hash !== 'string' ||
    !line.event ||
    typeof line.event !== 'object'
  ) {
    return 'it is not an audit chain line (seq, prev, time, event, hash)';
  }
  return line as AuditChainLine;
}
