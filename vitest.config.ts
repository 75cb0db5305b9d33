import { defineConfig } from 'vitest/config';

/** Tests that measure time: throughput against a rate taken a moment earlier, and the Studio journeys that bound the
 * browser's main-thread work per interaction. They run last, one at a time, with no other test file on the cores: on
 * a 2-core machine a neighbouring file took most of the CPU from a flood and its baseline alike, in different
 * measure, and stretched a 30 ms render into a 120 ms long task. */
const ALONE = ['test/faults/admission.test.ts', 'test/studio/access-speed.test.ts', 'test/studio/workflow-designer.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    // expect.poll waits for a state the server or the browser reaches (a save, a re-render); on a loaded 2-core CI
    // machine that takes longer than the default second now and then.
    expect: { poll: { timeout: 5_000 } },
    hookTimeout: 120_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'main', include: ['test/**/*.test.ts'], exclude: ALONE, maxWorkers: 2, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
