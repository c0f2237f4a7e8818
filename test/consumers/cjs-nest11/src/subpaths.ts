// Type-checks an import of every public subpath; never loaded at run time (the optional peers they
// need, such as ioredis, are not installed here).
import {
  ElicitationModule,
  ElicitationService,
  ElicitationStore,
} from 'nestjs-mcp-elicitation';
import { RedisElicitationStore } from 'nestjs-mcp-elicitation/redis';
import {
  MemoryElicitationStore,
  type ElicitationRecordStore,
} from 'nestjs-mcp-elicitation/store';
import {
  createElicitationTestClient,
  describeElicitationStoreContract,
} from 'nestjs-mcp-elicitation/testing';

export const subpaths = [
  ElicitationModule,
  ElicitationService,
  ElicitationStore,
  RedisElicitationStore,
  MemoryElicitationStore,
  createElicitationTestClient,
  describeElicitationStoreContract,
];

// What the `/store` entry gives a store author fits the main entry's `store` option.
export const storeSubpath: [
  typeof ElicitationStore,
  ElicitationRecordStore | undefined,
] = [MemoryElicitationStore, undefined];
