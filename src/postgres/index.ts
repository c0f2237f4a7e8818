export { PostgresElicitationStore, type PostgresElicitationStoreOptions } from './postgres.store.js';
export { schemaSql, SCHEMA_VERSION, DEFAULT_POSTGRES_NAMES, type PostgresNames } from './postgres.schema.js';
