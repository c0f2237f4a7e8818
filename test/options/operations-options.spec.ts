import { describe, expect, it } from '@jest/globals';
import { SELF_DECLARED_DEPS_METADATA } from '@nestjs/common/constants.js';
import { Test } from '@nestjs/testing';
import { ElicitationCleanupScheduler } from '../../src/module/elicitation-cleanup.scheduler.js';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { ElicitationAudit } from '../../src/observability/elicitation-audit.js';
import { ELICITATION_RESOLVED_OPTIONS } from '../../src/options/elicitation.constants.js';
import type { ElicitationAuditRecord } from '../../src/options/audit-record.js';
import type { ResolvedElicitationOptions } from '../../src/options/resolved-options.js';
import { ELICITATION_OPERATIONS_OPTIONS, type ElicitationOperationsOptions } from '../../src/options/operations-options.js';

const KEYS = [Buffer.alloc(32, 7)];
const sink = (record: ElicitationAuditRecord) => void record;

describe('ELICITATION_OPERATIONS_OPTIONS (the audit log’s and the expiry sweep’s slice of the options)', () => {
  it('holds the audit sink and the sweep interval, copied out of the resolved options, and nothing else', async () => {
    const ref = await Test.createTestingModule({
      imports: [
        ElicitationModule.forRoot({ baseUrl: 'https://mcp.example.com', encryptionKey: KEYS, audit: sink, cleanupIntervalMs: 12_345 }),
      ],
    }).compile();
    try {
      const resolved = ref.get<ResolvedElicitationOptions>(ELICITATION_RESOLVED_OPTIONS);
      const slice = ref.get<ElicitationOperationsOptions>(ELICITATION_OPERATIONS_OPTIONS);
      expect(Object.keys(slice).sort()).toEqual(['audit', 'cleanupIntervalMs']);
      expect(slice).toEqual({ audit: resolved.audit, cleanupIntervalMs: 12_345 });
      expect(slice.audit).toBe(sink);
      expect(Object.isFrozen(slice)).toBe(true);
      expect(Object.values(slice)).not.toContain(resolved.encryptionKeys);
    } finally {
      await ref.close();
    }
  });

  it('is what the audit log and the cleanup scheduler inject, not the whole resolved options', () => {
    const tokens = (target: object) =>
      ((Reflect.getMetadata(SELF_DECLARED_DEPS_METADATA, target) ?? []) as Array<{ param: unknown }>).map((dep) => dep.param);
    for (const target of [ElicitationAudit, ElicitationCleanupScheduler]) {
      expect(tokens(target)).not.toContain(ELICITATION_RESOLVED_OPTIONS);
      expect(tokens(target)).toContain(ELICITATION_OPERATIONS_OPTIONS);
    }
  });
});
