// Type-checks an import of every public subpath; never loaded at run time (the optional peers they
// need, such as ioredis, are not installed here).
import { ElicitationModule, ElicitationService, ElicitationStore } from 'nestjs-mcp-elicitation';
import { RedisElicitationStore } from 'nestjs-mcp-elicitation/redis';
import { createElicitationTestClient, describeElicitationStoreContract } from 'nestjs-mcp-elicitation/testing';

export const subpaths = [
  ElicitationModule,
  ElicitationService,
  ElicitationStore,
  RedisElicitationStore,
  createElicitationTestClient,
  describeElicitationStoreContract,
];
