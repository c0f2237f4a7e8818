/**
 * Run after every e2e test file (jest `setupFilesAfterEnv`): a demo process the file started and did not stop (a
 * `beforeAll` that failed halfway, say, after one of two processes was up) is killed, so that its open pipes
 * cannot keep Jest from exiting. A file that stops its processes itself, as each should, leaves nothing here.
 */
import { afterAll } from '@jest/globals';
import { liveChildren } from '../../examples/demo/demo-process.js';

afterAll(() => {
  for (const child of liveChildren) {
    console.warn(`e2e: a demo process (pid ${child.pid}) was still running at the end of the file: killed`);
    child.kill('SIGKILL');
    liveChildren.delete(child);
  }
});
