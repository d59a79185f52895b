import { describe, expect, it } from 'vitest';
import { taskPayload } from '../../src/runtime/tasks.js';
import type { TaskRecord } from '../../src/store/tasks.js';

const task = (output_tail: string): TaskRecord => ({
  id: 'k-1', agent: 'a', work_item: null, command: ['./ci.sh'], cwd: '/', status: 'finished', started_at: '', ended_at: '',
  exit_code: 0, signal: null, output_tail, log: '', supervisor_pid: null, pid: null, event: null, reported_at: null,
});

describe('taskPayload', () => {
  it('keeps no terminal control sequences from the command output (untrusted data shown by resume)', () => {
    const p = taskPayload(task('\u001b[31mFAIL\u001b[0m test\r\n50%\r100%\n\u001b]0;title\u0007bell\u0000'));
    expect(p).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(p).toContain('FAIL test\n50%\n100%\n');
    expect(p).toContain('exit code 0\ncommand: ./ci.sh\n--- output tail ---\n');
  });
});
