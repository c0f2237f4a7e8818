import type { AuditLink, ElicitationAuditChainStore } from './audit-chain-store.js';

/**
 * The audit chains of `MemoryElicitationStore` (`ElicitationAuditChainStore`): each stream's lines in an array, the
 * `seq`-th at index `seq - 1`, appended only as the next. Nothing expires: lines are kept as long as the process.
 */
export class MemoryAuditChain implements ElicitationAuditChainStore {
  private readonly streams = new Map<string, string[]>();

  lastAuditLink(stream: string): Promise<AuditLink | undefined> {
    const lines = this.streams.get(stream);
    return Promise.resolve(lines?.length ? { stream, seq: lines.length, line: lines[lines.length - 1] } : undefined);
  }

  appendAuditLink(link: AuditLink): Promise<boolean> {
    const lines = this.streams.get(link.stream) ?? [];
    if (link.seq !== lines.length + 1) return Promise.resolve(false);
    lines.push(link.line);
    this.streams.set(link.stream, lines);
    return Promise.resolve(true);
  }

  readAuditLinks(stream: string, fromSeq: number, limit: number): Promise<AuditLink[]> {
    const lines = this.streams.get(stream) ?? [];
    const from = Math.max(1, Math.floor(fromSeq));
    const to = Math.min(lines.length, from - 1 + Math.max(0, Math.floor(limit)));
    const links: AuditLink[] = [];
    for (let seq = from; seq <= to; seq++) links.push({ stream, seq, line: lines[seq - 1] });
    return Promise.resolve(links);
  }
}
