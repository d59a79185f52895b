import { fstatSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';
import { sleepSync } from '../store/sleep-sync.js';

/**
 * Standard output and error without `process.stdout` and `process.stderr`. Node makes each stream on
 * first use, and making one costs a short command ~6 ms of cpu when it is a file and ~11 ms when it is
 * a pipe (a net.Socket and the modules behind it), about a tenth of a bare node start; a command
 * prints once and exits. So a short command writes to fd 1 and 2 with fs.writeSync, which blocks until
 * written, as node's own streams do for files and (on Linux) pipes:
 * - a reader of stdout that went away (`holon frontier | head`) ends the command with exit 0, as
 *   before; a gone reader of stderr loses the message only;
 * - a non-blocking fd (EAGAIN: another process made its stream on the same pipe) is waited on, a
 *   millisecond at a time, so every line still comes out whole and in order.
 * The long-running commands (watch, dash, mcp) use the streams instead (useStreams): a blocking write
 * to a reader that stalls (`holon watch 2>&1 | less`) would stop their event loop, timers and signal
 * handlers with it. So does Windows, whose console needs the stream's UTF-16 conversion.
 */
let streams = process.platform === 'win32';

/** From now on, write through process.stdout and process.stderr (main.ts, for the long-running commands). */
export function useStreams(): void {
  streams = true;
}

function writeFd(fd: 1 | 2, text: string | Uint8Array): void {
  if (streams) {
    // A stream holds what it is given until written: bytes are copied (a caller may reuse its buffer).
    (fd === 1 ? process.stdout : process.stderr).write(typeof text === 'string' ? text : Buffer.from(text));
    return;
  }
  let buf: Uint8Array | null = typeof text === 'string' ? null : text;
  let done = 0;
  for (;;) {
    try {
      if (!buf) {
        // Written as a string in one call (no copy), the usual case; a blocking write returns short
        // only if a signal cut it.
        const str = text as string;
        done = writeSync(fd, str);
        if (done === Buffer.byteLength(str)) return;
        buf = Buffer.from(str);
      }
      while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') {
        if (fd === 1) process.exit(0);
        return;
      }
      if (code !== 'EAGAIN') {
        // stderr cannot say anything about itself. Output that cannot be written (a full disk, an I/O
        // error) ends the command with exit 1, as the stream's error did: the work is done by then, and
        // an error reported the usual way would be written to the same stdout.
        if (fd === 2) return;
        try {
          writeSync(2, `holon: cannot write to standard output: ${(err as Error).message}\n`);
        } catch {
          // Nowhere left to say it.
        }
        process.exit(1);
      }
      // Nothing was written by the call that failed: wait for the reader, then go on from `done`.
      buf ??= Buffer.from(text as string);
      sleepSync(1);
    }
  }
}

export const writeOut = (text: string | Uint8Array) => writeFd(1, text);
export const writeErr = (text: string) => writeFd(2, text);

let tty: boolean | undefined;

/**
 * Whether stdout is a terminal, without process.stdout: a pipe or a file is not; on Linux /dev/null
 * (character device major 1) is not and a pseudo-terminal (majors 136-143) is; anything else asks
 * node:tty (which loads the net module, ~10 ms).
 */
export function stdoutIsTTY(): boolean {
  if (tty !== undefined) return tty;
  let s;
  try {
    s = fstatSync(1);
  } catch {
    return (tty = false);
  }
  if (!s.isCharacterDevice()) return (tty = false);
  if (process.platform === 'linux') {
    const major = (s.rdev >> 8) & 0xfff;
    if (major === 1) return (tty = false);
    if (major >= 136 && major <= 143) return (tty = true);
  }
  return (tty = isatty(1));
}
