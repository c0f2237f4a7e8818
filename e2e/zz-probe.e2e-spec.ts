import { it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { ElicitationModule } from '../src/elicitation.module.js';
import { ElicitationService } from '../src/elicitation.service.js';
import { csrfFor } from './support/page-form.js';

it('probe', async () => {
  const moduleRef = await Test.createTestingModule({
    imports: [ElicitationModule.forRoot({ baseUrl: 'http://127.0.0.1:3000', resolvePageUser: (r: any) => r.headers['x-test-user'], cleanupIntervalMs: 0, throttle: false, loginUrl: '/login' } as any)],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: { log(){}, warn(){}, debug(){}, verbose(){}, error(...a: any[]){ console.log('ERR', ...a) } } as any });
  await app.init();
  const s = app.getHttpServer();
  const svc = app.get(ElicitationService);
  const c = await svc.createUrlElicitation({ kind: 'api-key', message: 'm', userId: 'alice' });
  const p = `/elicit/${c.elicitationId}/api-key`;
  const show = (n: string, r: request.Response) => console.log(n, r.status, r.headers['content-type'], JSON.stringify(r.headers).slice(0, 300), r.text.slice(0, 200));
  show('toString json', await request(s).post(p).set('x-test-user','alice').set('content-type','application/json').send('{"x":{"toString":1}}'));
  show('malformed json', await request(s).post(p).set('x-test-user','alice').set('content-type','application/json').send('{"x":'));
  show('bad pct', await request(s).get('/elicit/%E0%A4%A/status'));
  show('bad pct page', await request(s).get('/elicit/%zz/api-key').set('x-test-user','alice'));
  show('big 200k', await request(s).post(p).set('x-test-user','alice').type('form').send('apiKey=' + 'a'.repeat(200000)));
  show('empty seg', await request(s).get('/elicit//api-key').set('x-test-user','alice'));
  show('anon', await request(s).get(p));
  show('anon tamper', await request(s).get(p + '?returnTo=https://evil.example').set('Host', 'evil.example'));
  const pair = await csrfFor(s, p, { 'x-test-user': 'alice' });
  show('json valid pair', await request(s).post(p).set('x-test-user','alice').set('Cookie', pair.cookie).send({ _csrf: pair.token, apiKey: 'jsonkey' }));
  const c2 = await svc.createUrlElicitation({ kind: 'api-key', message: 'm', userId: 'alice' });
  const p2 = `/elicit/${c2.elicitationId}/api-key`;
  const pair2 = await csrfFor(s, p2, { 'x-test-user': 'alice' });
  show('obj key', await request(s).post(p2).set('x-test-user','alice').set('Cookie', pair2.cookie).type('form').send(`_csrf=${pair2.token}&apiKey[toString]=1&apiKey[a]=2`));
  show('repeat key', await request(s).post(p2).set('x-test-user','alice').set('Cookie', pair2.cookie).type('form').send(`_csrf=${pair2.token}&apiKey=a&apiKey=b`));
  show('deep', await request(s).post(p2).set('x-test-user','alice').set('Cookie', pair2.cookie).type('form').send(`_csrf=${pair2.token}&action[]=cancel&apiKey=x`));
  show('json arr action', await request(s).post(p2).set('x-test-user','alice').set('Cookie', pair2.cookie).send({_csrf: pair2.token, action: ['cancel'], apiKey: 'k'}));
  console.log(await svc.getResult(c2.elicitationId));
  show('json null body', await request(s).post(p2).set('x-test-user','alice').set('Cookie', pair2.cookie).set('content-type','application/json').send('null'));
  show('json str body', await request(s).post(p2).set('x-test-user','alice').set('Cookie', pair2.cookie).set('content-type','application/json').send('"abc"'));
  show('json num body', await request(s).post(p2).set('x-test-user','alice').set('Cookie', pair2.cookie).set('content-type','application/json').send('5'));
  show('json arr body', await request(s).post(p2).set('x-test-user','alice').set('Cookie', pair2.cookie).set('content-type','application/json').send('[1,2]'));
  await app.close();
});
