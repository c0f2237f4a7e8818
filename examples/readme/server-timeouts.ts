import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Server } from 'node:http';
import { GitHubKeysModule as AppModule } from './quick-start.js';

export async function bootstrap() {
  const app = await NestFactory.create<INestApplication<Server>>(AppModule);
  await app.listen(3000);
  const server = app.getHttpServer(); // node:http Server (Express or Fastify)
  server.headersTimeout = 20_000; // the request line and headers, in 20 s
  server.requestTimeout = 30_000; // the whole request (headers and body), in 30 s: page posts are small
  server.keepAliveTimeout = 5_000; // idle keep-alive connections (Node's default)
}
