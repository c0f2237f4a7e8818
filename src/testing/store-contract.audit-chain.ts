import { randomUUID } from 'node:crypto';
import type { ElicitationRecordStore } from '../stores/elicitation-store.js';
import type { ContractGroupApi } from './contract-test-api.js';

/** The audit-chain group's methods, as the record contract declares them (the kit imports no other part of the stores). */
type ElicitationAuditChainStore = Required<Pick<ElicitationRecordStore, 'lastAuditLink' | 'appendAuditLink' | 'readAuditLinks'>>;
type AuditLink = Parameters<ElicitationAuditChainStore['appendAuditLink']>[0];

/**
 * The audit-chain group of the record contract: run when `offers` lists `lastAuditLink`, `appendAuditLink` and
 * `readAuditLinks`. Streams are the test's own (the store may be shared between tests).
 */
export function auditChainTests({ itIfOffered, expect }: ContractGroupApi<ElicitationRecordStore>): void {
  const of = (s: ElicitationRecordStore): ElicitationAuditChainStore => {
    if (!s.lastAuditLink || !s.appendAuditLink || !s.readAuditLinks)
      throw new Error('the store lacks one of lastAuditLink, appendAuditLink, readAuditLinks, but options.offers lists them');
    return { lastAuditLink: s.lastAuditLink.bind(s), appendAuditLink: s.appendAuditLink.bind(s), readAuditLinks: s.readAuditLinks.bind(s) };
  };
  const streamOf = (name: string) => `contract-${name}-${randomUUID()}`;
  const linkOf = (stream: string, seq: number): AuditLink => ({ stream, seq, line: JSON.stringify({ seq, prev: `hash-${seq - 1}` }) });

  itIfOffered('appendAuditLink', 'appends each link as its stream’s next, from 1; refuses a seq taken or past the next', async (store) => {
    const chain = of(store);
    const stream = streamOf('append');
    await expect(chain.lastAuditLink(stream)).resolves.toBeUndefined();
    await expect(chain.appendAuditLink(linkOf(stream, 2))).resolves.toBe(false);
    await expect(chain.appendAuditLink(linkOf(stream, 0))).resolves.toBe(false);
    await expect(chain.readAuditLinks(stream, 1, 10)).resolves.toEqual([]);
    await expect(chain.appendAuditLink(linkOf(stream, 1))).resolves.toBe(true);
    await expect(chain.lastAuditLink(stream)).resolves.toEqual(linkOf(stream, 1));
    await expect(chain.appendAuditLink({ ...linkOf(stream, 1), line: 'another first' })).resolves.toBe(false);
    await expect(chain.appendAuditLink(linkOf(stream, 3))).resolves.toBe(false);
    await expect(chain.appendAuditLink(linkOf(stream, 2))).resolves.toBe(true);
    await expect(chain.appendAuditLink({ ...linkOf(stream, 2), line: 'another second' })).resolves.toBe(false);
    await expect(chain.appendAuditLink(linkOf(stream, 3))).resolves.toBe(true);
    await expect(chain.lastAuditLink(stream)).resolves.toEqual(linkOf(stream, 3));
    await expect(chain.readAuditLinks(stream, 1, 10)).resolves.toEqual([1, 2, 3].map((seq) => linkOf(stream, seq)));
  });

  itIfOffered('readAuditLinks', 'reads up to limit links from fromSeq on, in order', async (store) => {
    const chain = of(store);
    const stream = streamOf('read');
    for (let seq = 1; seq <= 7; seq++) await chain.appendAuditLink(linkOf(stream, seq));
    const links = (...seqs: number[]) => seqs.map((seq) => linkOf(stream, seq));
    await expect(chain.readAuditLinks(stream, 1, 3)).resolves.toEqual(links(1, 2, 3));
    await expect(chain.readAuditLinks(stream, 4, 3)).resolves.toEqual(links(4, 5, 6));
    await expect(chain.readAuditLinks(stream, 6, 10)).resolves.toEqual(links(6, 7));
    await expect(chain.readAuditLinks(stream, 7, 1)).resolves.toEqual(links(7));
    await expect(chain.readAuditLinks(stream, 8, 10)).resolves.toEqual([]);
    await expect(chain.readAuditLinks(stream, 2, 0)).resolves.toEqual([]);
    await expect(chain.readAuditLinks(streamOf('none'), 1, 10)).resolves.toEqual([]);
  });

  itIfOffered('appendAuditLink', 'keeps streams apart: each its own seqs, last link and lines', async (store) => {
    const chain = of(store);
    const a = streamOf('a');
    const b = streamOf('b');
    await expect(chain.appendAuditLink(linkOf(a, 1))).resolves.toBe(true);
    await expect(chain.appendAuditLink(linkOf(a, 2))).resolves.toBe(true);
    await expect(chain.appendAuditLink(linkOf(b, 2))).resolves.toBe(false);
    await expect(chain.appendAuditLink({ ...linkOf(b, 1), line: 'b first' })).resolves.toBe(true);
    await expect(chain.lastAuditLink(a)).resolves.toEqual(linkOf(a, 2));
    await expect(chain.lastAuditLink(b)).resolves.toEqual({ ...linkOf(b, 1), line: 'b first' });
    await expect(chain.readAuditLinks(b, 1, 10)).resolves.toEqual([{ ...linkOf(b, 1), line: 'b first' }]);
  });

  itIfOffered('appendAuditLink', 'appends one of ten links of one seq appended at once; the others read it as the last', async (store) => {
    const chain = of(store);
    const stream = streamOf('race');
    await chain.appendAuditLink(linkOf(stream, 1));
    const tries = Array.from({ length: 10 }, (_, i) => ({ stream, seq: 2, line: `instance ${i}` }));
    const appended = await Promise.all(tries.map((link) => chain.appendAuditLink(link)));
    expect(appended.filter(Boolean)).toHaveLength(1);
    const winner = tries[appended.indexOf(true)];
    await expect(chain.lastAuditLink(stream)).resolves.toEqual(winner);
    await expect(chain.readAuditLinks(stream, 1, 10)).resolves.toEqual([linkOf(stream, 1), winner]);
    // Ten first links of a new stream at once: one.
    const fresh = streamOf('race-first');
    const firsts = await Promise.all(
      Array.from({ length: 10 }, (_, i) => chain.appendAuditLink({ stream: fresh, seq: 1, line: `first ${i}` })),
    );
    expect(firsts.filter(Boolean)).toHaveLength(1);
    await expect(chain.readAuditLinks(fresh, 1, 10)).resolves.toEqual([{ stream: fresh, seq: 1, line: `first ${firsts.indexOf(true)}` }]);
  });
}
