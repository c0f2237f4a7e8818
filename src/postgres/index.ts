export { PostgresElicitationStore, type PostgresElicitationStoreOptions } from './postgres.store.js';
export { schemaSql } from './postgres.schema.js';
export { SCHEMA_VERSION } from './postgres.schema-version.js';
export { DEFAULT_POSTGRES_NAMES, type PostgresNames } from './postgres.names.js';
