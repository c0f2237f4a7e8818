/** The chained audit's lines and their check (`proofs/audit-chain-lines.ts`): every kind of broken link is named. */
import { describe, expect, it } from '@jest/globals';
import { CHAIN_START, chainLine, verifyAuditChain, type AuditChainLine } from '../../src/proofs/audit-chain-lines.js';

const parse = (text: string) => JSON.parse(text) as AuditChainLine;

function chain(count: number): string[] {
  const lines = [];
  let prev = CHAIN_START;
  for (let seq = 1; seq <= count; seq++) {
    const line = chainLine(seq, prev, `2026-12-02T00:00:0${seq}.000Z`, { event: 'approval.decided', userId: `user${seq}` });
    lines.push(JSON.stringify(line));
    prev = line.hash;
  }
  return lines;
}

describe('verifyAuditChain', () => {
  it('takes a whole chain, and a part of one from its anchor', () => {
    const lines = chain(4);
    expect(verifyAuditChain(`${lines.join('\n')}\n`, CHAIN_START)).toEqual({
      valid: true,
      lines: 4,
      last: { seq: 4, hash: parse(lines[3]).hash },
    });
    expect(verifyAuditChain(lines.slice(2).join('\n'))).toMatchObject({ valid: true, lines: 2 });
    expect(verifyAuditChain(lines.slice(2).join('\n'), parse(lines[1]).hash)).toMatchObject({ valid: true });
    expect(verifyAuditChain(lines.slice(2).join('\n'), CHAIN_START)).toMatchObject({ valid: false, line: 1, seq: 3 });
    expect(verifyAuditChain('')).toEqual({ valid: true, lines: 0 });
  });

  it('names a changed line, whose hash no longer matches', () => {
    const lines = chain(3);
    lines[1] = lines[1].replace('user2', 'mallory');
    expect(verifyAuditChain(lines.join('\n'))).toEqual({ valid: false, line: 2, seq: 2, reason: expect.stringContaining('was changed') });
  });

  it('names a line whose hash was made again after a change: the next line no longer links to it', () => {
    const lines = chain(3);
    const changed = parse(lines[1]);
    lines[1] = JSON.stringify(chainLine(2, changed.prev, changed.time, { ...changed.event, userId: 'mallory' }));
    expect(verifyAuditChain(lines.join('\n'))).toMatchObject({ valid: false, line: 3, seq: 3, reason: expect.stringContaining('prev') });
  });

  it('names a line left out, and one put in', () => {
    const lines = chain(4);
    expect(verifyAuditChain([lines[0], lines[2], lines[3]].join('\n'))).toMatchObject({ valid: false, line: 2, seq: 3 });
    const extra = JSON.stringify(chainLine(2, parse(lines[0]).hash, '2026-12-02T00:00:09.000Z', { event: 'approval.decided' }));
    expect(verifyAuditChain([lines[0], extra, ...lines.slice(1)].join('\n'))).toMatchObject({ valid: false, line: 3, seq: 2 });
  });

  it('names a line that is not JSON, or not a chain line', () => {
    const lines = chain(2);
    expect(verifyAuditChain([lines[0], '{oops'].join('\n'))).toEqual({ valid: false, line: 2, reason: 'it is not JSON' });
    expect(verifyAuditChain([lines[0], '{"seq":2}'].join('\n'))).toMatchObject({
      valid: false,
      line: 2,
      reason: expect.stringContaining('not an audit chain line'),
    });
  });
});
