import { Inject, Injectable } from '@nestjs/common';
import { CHAIN_START, chainLine, type AuditChainLine } from '../proofs/audit-chain-lines.js';
import type { AuditLink, ElicitationAuditChainStore } from '../stores/audit-chain-store.js';
import type { ElicitationStore } from '../stores/elicitation-store.js';
import { ELICITATION_OBSERVED_STORE } from './observed-store.js';

/** The stream the approvals' decisions are chained in. */
export const APPROVALS_STREAM = 'approvals';
/** Tries of one append that other instances' appends went before (each reads the new last line and links to it). */
const APPEND_TRIES = 100;
/** Lines read from the store per round trip of an export. */
const EXPORT_BATCH = 500;

/** What `exportAudit` reads: a stream, from a line on, at most so many lines. */
export interface AuditExportOptions {
  /** @default `approvals` */
  stream?: string;
  /** The first line's `seq`. @default 1 */
  fromSeq?: number;
  /** The most lines. @default 100000 */
  limit?: number;
}

/**
 * The tamper-evident audit: append-only streams of lines in the store, each line carrying the hash of the one before
 * (`proofs/audit-chain-lines.ts`), appended as its stream's next in one atomic step of the store, so that lines written
 * at once by several instances still form one chain. A store without the audit-chain group keeps none (`enabled`).
 */
@Injectable()
export class ElicitationAuditChain {
  private readonly chain: ElicitationAuditChainStore | undefined;
  /** Each stream's last append of this instance, which the next one waits for. */
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(@Inject(ELICITATION_OBSERVED_STORE) store: ElicitationStore) {
    this.chain = store.lastAuditLink && store.appendAuditLink && store.readAuditLinks ? (store as ElicitationAuditChainStore) : undefined;
  }

  /** Whether the store keeps chains. */
  get enabled(): boolean {
    return this.chain !== undefined;
  }

  /**
   * Appends `event` to `stream`, linked to its last line; resolves the line written (none without a chain store). The
   * appends of this instance to one stream go one after another, so only other instances' compete with them.
   */
  append(stream: string, event: Record<string, unknown>): Promise<AuditChainLine | undefined> {
    const chain = this.chain;
    if (!chain) return Promise.resolve(undefined);
    const before = this.tails.get(stream) ?? Promise.resolve();
    const done = before.then(() => this.appendNow(chain, stream, event));
    const tail = done.catch(() => undefined);
    this.tails.set(stream, tail);
    void tail.then(() => {
      if (this.tails.get(stream) === tail) this.tails.delete(stream);
    });
    return done;
  }

  private async appendNow(chain: ElicitationAuditChainStore, stream: string, event: Record<string, unknown>): Promise<AuditChainLine> {
    for (let attempt = 0; attempt < APPEND_TRIES; attempt++) {
      const last = await chain.lastAuditLink(stream);
      const line = chainLine((last?.seq ?? 0) + 1, last ? hashOf(last) : CHAIN_START, new Date().toISOString(), event);
      if (await chain.appendAuditLink({ stream, seq: line.seq, line: JSON.stringify(line) })) return line;
      // Another instance appended first: a short, random pause, then link to its line.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * Math.min(attempt + 1, 20)));
    }
    throw new Error(`the audit stream "${stream}" took no line in ${APPEND_TRIES} tries (too many appends at once)`);
  }

  /** A stream's lines from `fromSeq` on as JSON Lines (one line per line, each ending with a newline). */
  async export(options: AuditExportOptions = {}): Promise<string> {
    const chain = this.chain;
    if (!chain) return '';
    const { stream = APPROVALS_STREAM, fromSeq = 1, limit = 100_000 } = options;
    const lines: string[] = [];
    let next = fromSeq;
    while (lines.length < limit) {
      const batch = await chain.readAuditLinks(stream, next, Math.min(EXPORT_BATCH, limit - lines.length));
      for (const link of batch) lines.push(`${link.line}\n`);
      if (batch.length === 0) break;
      next = batch.at(-1)!.seq + 1;
    }
    return lines.join('');
  }
}

/** The hash a link's line carries. */
function hashOf(link: AuditLink): string {
  return (JSON.parse(link.line) as AuditChainLine).hash;
}
