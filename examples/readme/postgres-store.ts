import { Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { Pool } from 'pg';
import { ElicitationModule } from 'nestjs-mcp-elicitation';
import { PostgresElicitationStore } from 'nestjs-mcp-elicitation/postgres';

// The pool your app already has (TypeORM, Prisma and Drizzle apps: a pg Pool on the same DATABASE_URL). The store
// never ends a pool it was given; from a connection string it opens its own pool and ends it on shutdown.
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

// Every instance on one database (and table prefix) gets the same encryptionKey: start-up fails without one.
export const onYourPool = ElicitationModule.forRoot({
  baseUrl: 'https://mcp.example.com',
  encryptionKey: process.env.ELICITATION_ENCRYPTION_KEY!,
  store: new PostgresElicitationStore(pool, { tablePrefix: 'elicitation_' }),
});

// Without a migration tool: create the tables (idempotent) before the module starts.
export const withoutMigrations = ElicitationModule.forRootAsync({
  imports: [ConfigModule],
  inject: [ConfigService],
  useFactory: async (config: ConfigService) => {
    const store = new PostgresElicitationStore(config.getOrThrow<string>('DATABASE_URL'));
    await store.createSchema();
    return {
      baseUrl: config.getOrThrow<string>('PUBLIC_URL'),
      encryptionKey: config.getOrThrow<string>('ELICITATION_ENCRYPTION_KEY'),
      store,
    };
  },
});

@Module({ imports: [ConfigModule.forRoot(), withoutMigrations] })
export class AppModule {}
