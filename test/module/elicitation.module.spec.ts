/**
 * `ElicitationModule.forRoot` / `forRootAsync` in a Nest app: bad options fail start-up naming them, options through a
 * provider or a factory class, `isGlobal`, the store given, `controllers: false`. The options' own checks:
 * test/options/elicitation-options.validation.spec.ts.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { Injectable, Logger, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { ELICITATION_RESOLVED_OPTIONS } from '../../src/options/elicitation.constants.js';
import type { ElicitationModuleOptions, ElicitationOptionsFactory } from '../../src/options/elicitation-options.interface.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';

const valid: ElicitationModuleOptions = {
  baseUrl: 'https://mcp.example.com',
  resolvePageUser: () => 'u',
  encryptionKey: Buffer.alloc(32, 7),
};

describe('ElicitationModule registration', () => {
  it('fails bootstrap on a bad option, naming it', async () => {
    await expect(Test.createTestingModule({ imports: [ElicitationModule.forRoot({ ...valid, ttlMs: -1 })] }).compile()).rejects.toThrow(
      /ElicitationModule option "ttlMs"/,
    );
  });

  it('fails at import time on a bad routePrefix', () => {
    expect(() => ElicitationModule.forRoot({ ...valid, routePrefix: 'no spaces please' })).toThrow(/routePrefix/);
  });

  it('logs the identity warning at start-up when resolvePageUser is missing', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn'); // calls through to the real logger
    try {
      const ref = await Test.createTestingModule({ imports: [ElicitationModule.forRoot({ baseUrl: 'https://x.example' })] }).compile();
      await ref.close();
      expect(warn.mock.calls.some((args) => String(args[0]).includes('resolvePageUser is not set'))).toBe(true);
    } finally {
      warn.mockRestore();
    }
  });

  it('forRootAsync with useFactory + inject resolves options through a provider', async () => {
    @Module({ providers: [{ provide: 'BASE', useValue: 'https://async.example' }], exports: ['BASE'] })
    class ConfigModule {}
    const ref = await Test.createTestingModule({
      imports: [
        ElicitationModule.forRootAsync({
          imports: [ConfigModule],
          inject: ['BASE'],
          useFactory: (base: string) => Promise.resolve({ baseUrl: base, ttlMs: 1234, resolvePageUser: () => 'u' }),
        }),
      ],
    }).compile();
    expect(ref.get(ELICITATION_RESOLVED_OPTIONS)).toMatchObject({ baseUrl: 'https://async.example', ttlMs: 1234 });
    const created = await ref.get(ElicitationService).createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'u' });
    expect(created.url).toMatch(/^https:\/\/async\.example\/elicit\/[0-9a-f-]{36}\/confirm$/);
    await ref.close();
  });

  it('forRootAsync with useClass calls createElicitationOptions', async () => {
    @Injectable()
    class OptionsFactory implements ElicitationOptionsFactory {
      createElicitationOptions(): ElicitationModuleOptions {
        return { baseUrl: 'https://class.example', resolvePageUser: () => 'u' };
      }
    }
    const ref = await Test.createTestingModule({
      imports: [ElicitationModule.forRootAsync({ useClass: OptionsFactory, routePrefix: 'mcp/ask' })],
    }).compile();
    const created = await ref.get(ElicitationService).createUrlElicitation({ kind: 'api-key', message: 'key?', userId: 'u' });
    expect(created.url).toMatch(/^https:\/\/class\.example\/mcp\/ask\/[0-9a-f-]{36}\/api-key$/);
    await ref.close();
  });

  it('is not global by default, and global with isGlobal: true (also through forRootAsync)', () => {
    expect(ElicitationModule.forRoot(valid).global).toBe(false);
    expect(ElicitationModule.forRootAsync({ isGlobal: true, useFactory: () => valid }).global).toBe(true);
  });

  it('makes the service injectable in another module when global', async () => {
    @Injectable()
    class Consumer {
      constructor(readonly service: ElicitationService) {}
    }
    @Module({ providers: [Consumer], exports: [Consumer] })
    class FeatureModule {}
    const ref = await Test.createTestingModule({
      imports: [ElicitationModule.forRootAsync({ isGlobal: true, useFactory: () => valid }), FeatureModule],
    }).compile();
    expect(ref.get(Consumer).service).toBeInstanceOf(ElicitationService);
    await ref.close();
  });

  it('uses the store instance given, and exports it under the ElicitationStore token', async () => {
    const store = new MemoryElicitationStore();
    const ref = await Test.createTestingModule({ imports: [ElicitationModule.forRoot({ ...valid, store })] }).compile();
    expect(ref.get(ElicitationStore)).toBe(store);
    await ref.get(ElicitationService).createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'u' });
    expect(store.size).toBe(1);
    await ref.close();
  });

  it('mounts no controllers with controllers: false', () => {
    expect(ElicitationModule.forRoot({ ...valid, controllers: false }).controllers).toEqual([]);
    expect(ElicitationModule.forRoot(valid).controllers).toHaveLength(8);
  });
});
