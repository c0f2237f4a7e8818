import { Test, TestingModule } from '@nestjs/testing';
import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { App } from 'supertest/types';
import { ElicitationService, ElicitationStore } from 'nestjs-mcp-elicitation';
import { AppModule } from './../src/app.module';

// Jest runs a `nest new` app's tests in its own CommonJS runtime, which (before Node 24.9) cannot require
// an ES module: this is what loads the package's CommonJS build.
describe('ElicitationModule in Jest (e2e)', () => {
  let app: INestApplication<App>;

  beforeEach(async () => {
    const moduleFixture: TestingModule = await Test.createTestingModule({
      imports: [AppModule],
    }).compile();

    app = moduleFixture.createNestApplication();
    await app.init();
  });

  it('serves the api-key page and the status of a new elicitation', async () => {
    const created = await request(app.getHttpServer())
      .post('/consent/api-key')
      .expect(201);
    const id: string = created.body.elicitationId;

    await request(app.getHttpServer())
      .get(`/elicit/${id}/api-key`)
      .expect(200)
      .expect('Content-Type', /^text\/html/);
    const status = await request(app.getHttpServer())
      .get(`/elicit/${id}/status`)
      .expect(200)
      .expect('Content-Type', /^application\/json/);
    expect(status.body.status).toBe('pending');
  });

  it('injects the service and the store by their classes', () => {
    expect(app.get(ElicitationService)).toBeInstanceOf(ElicitationService);
    expect(app.get(ElicitationStore)).toBeInstanceOf(ElicitationStore);
  });

  afterEach(async () => {
    await app.close();
  });
});
