// Prints the plain "N passed, N failed" line CI reads, counting TESTS, from one or more vitest JSON
// reports (`node .ci/summary.mjs .ci/results.json .ci/results-agents.json`): the counts are summed.
// A suite (file) that failed before running any test (an import error, a crash) counts as one failed
// test, so it can never vanish from the count; a report that is missing or unreadable counts as one too.
import { readFileSync } from 'node:fs';

const files = process.argv.slice(2);
if (!files.length) files.push('.ci/results.json');
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    failed++;
    console.error(`no test report ${file}: ${err.message}`);
    continue;
  }
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const suite of report.testResults ?? []) {
    const ran = (suite.assertionResults ?? []).some((t) => t.status === 'passed' || t.status === 'failed');
    if (suite.status === 'failed' && !ran) {
      failed++;
      console.error(`${suite.name}: failed without running a test${suite.message ? `: ${suite.message.split('\n')[0]}` : ''}`);
    }
  }
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
