import { Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { Redis } from 'ioredis';
import { ElicitationModule } from 'nestjs-mcp-elicitation';
import { RedisElicitationStore } from 'nestjs-mcp-elicitation/redis';

const baseUrl = 'https://mcp.example.com';

// Every instance on one Redis (and key prefix) gets the same encryptionKey: start-up fails without one, and an
// instance whose key shares none with the running instances' refuses to start. Make one: openssl rand -base64 32
// From a client you own (standalone, Sentinel or Cluster): the store never closes it.
export const fromYourClient = ElicitationModule.forRoot({
  baseUrl,
  encryptionKey: process.env.ELICITATION_ENCRYPTION_KEY!,
  store: new RedisElicitationStore(new Redis(process.env.REDIS_URL!)),
});

// From a URL or ioredis options: the store opens the connection, fails commands fast while Redis is
// down (one retry, 5 s command timeout) and closes it on application shutdown.
export const fromAUrl = ElicitationModule.forRootAsync({
  imports: [ConfigModule],
  inject: [ConfigService],
  useFactory: (config: ConfigService) => ({
    baseUrl: config.getOrThrow<string>('PUBLIC_URL'),
    encryptionKey: config.getOrThrow<string>('ELICITATION_ENCRYPTION_KEY'),
    store: new RedisElicitationStore(config.getOrThrow<string>('REDIS_URL'), { keyPrefix: 'myapp-elicit' }),
  }),
});

@Module({ imports: [ConfigModule.forRoot(), fromAUrl] })
export class AppModule {}
