/**
 * The e2e project's test environment: Node's, and at the end of each test file (after every hook of the file) it
 * kills any demo process the file started and did not stop (a `beforeAll` that failed halfway, say, after one of
 * two processes was up), so that its open pipes cannot keep Jest from exiting. `startDemoProcess`
 * (examples/demo/demo-process.ts) keeps its live processes on the file's global `__liveDemoChildren`. A file that
 * stops its processes itself, as each should, leaves nothing here.
 */
import { TestEnvironment } from 'jest-environment-node';

export default class DemoEnvironment extends TestEnvironment {
  async teardown() {
    const live = this.global.__liveDemoChildren;
    for (const child of live ?? []) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      console.warn(`e2e: a demo process (pid ${child.pid}) was still running at the end of the file: killed`);
      child.kill('SIGKILL');
    }
    live?.clear();
    await super.teardown();
  }
}
