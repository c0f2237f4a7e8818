export { RedisElicitationStore, type RedisElicitationStoreOptions } from './redis.store.js';
