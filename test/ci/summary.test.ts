import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/cli.js';

const summary = (files: string[]) =>
  new Promise<{ code: number; stdout: string }>((res) =>
    execFile(process.execPath, [join(ROOT, '.ci/summary.mjs'), ...files], (err, stdout) => res({ code: err ? Number((err as any).code) : 0, stdout })),
  );

/** The fields of a vitest JSON report summary.mjs reads. */
function report(dir: string, name: string, suites: Array<{ status: string; tests: string[] }>): string {
  const all = suites.flatMap((s) => s.tests);
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({
    numPassedTests: all.filter((t) => t === 'passed').length,
    numFailedTests: all.filter((t) => t === 'failed').length,
    numPendingTests: all.filter((t) => t === 'skipped').length,
    numTodoTests: 0,
    numFailedTestSuites: suites.filter((s) => s.status === 'failed').length + 2, // describe blocks count here too
    testResults: suites.map((s, i) => ({ name: `suite${i}.test.ts`, status: s.status, message: s.status === 'failed' && !s.tests.length ? 'Error: cannot import' : '', assertionResults: s.tests.map((status) => ({ status })) })),
  }));
  return file;
}

describe('.ci/summary.mjs', () => {
  it('counts tests, not failed describe blocks or files', async () => {
    const dir = tempDir();
    const r = await summary([report(dir, 'a.json', [{ status: 'failed', tests: ['passed', 'failed', 'passed'] }, { status: 'passed', tests: ['passed'] }])]);
    expect(r.stdout.trim()).toBe('3 passed, 1 failed');
    expect(r.code).toBe(1);
  });

  it('a suite that failed before running any test counts once; skipped tests are shown', async () => {
    const dir = tempDir();
    const r = await summary([report(dir, 'a.json', [{ status: 'failed', tests: [] }, { status: 'passed', tests: ['passed', 'skipped'] }])]);
    expect(r.stdout.trim()).toBe('1 passed, 1 failed, 1 skipped');
  });

  it('sums several reports; a missing one is a failure; all green exits 0', async () => {
    const dir = tempDir();
    const a = report(dir, 'a.json', [{ status: 'passed', tests: ['passed', 'passed'] }]);
    const b = report(dir, 'b.json', [{ status: 'passed', tests: ['passed'] }]);
    expect(await summary([a, b])).toEqual({ code: 0, stdout: '3 passed, 0 failed\n' });
    expect((await summary([a, join(dir, 'none.json')])).stdout.trim()).toBe('2 passed, 1 failed');
  });
});
