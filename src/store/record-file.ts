import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { RecordParseError, type RecordProblem } from '../core/record-codec.js';

// fs takes numeric open flags where its types say string.
const NONBLOCKING = (constants.O_RDONLY | constants.O_NONBLOCK) as unknown as string;

function kind(s: Stats): string | null {
  if (s.isFile()) return null;
  if (s.isDirectory()) return 'a directory';
  if (s.isFIFO()) return 'a FIFO (named pipe)';
  if (s.isSocket()) return 'a socket';
  if (s.isSymbolicLink()) return 'a symbolic link';
  return 'a device';
}

const notRegular = (file: string, what: string): RecordProblem => ({
  file,
  line: 1,
  message: `not a regular file (${what}): skipped`,
  fix: 'records are regular files: move it out of the folder',
});

/**
 * Reads a record's text without ever blocking: opened non-blocking and checked with fstat, so a FIFO,
 * a socket, a device or a directory named like a record is refused (RecordParseError, line 1) instead
 * of hanging or failing with EISDIR. A symbolic link to a regular file is read (`holon check` reports it).
 */
export function readRecordText(file: string, listedRegular = false): string {
  // A file just listed as a regular file (work-listing.ts) is read in one call, still non-blocking:
  // the open, fstat and close of the guarded path are a fifth of a cold frontier's reading. Only a file
  // swapped for a device between the listing and this read, microseconds apart, escapes the guard.
  if (listedRegular) return readFileSync(file, { encoding: 'utf8', flag: NONBLOCKING });
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const what = kind(fstatSync(fd));
    if (what) throw new RecordParseError(notRegular(file, what));
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** For `holon check`: a record path that is not a regular file, or a symbolic link (git stores the link, not the record). */
export function irregularRecord(file: string): RecordProblem | null {
  let s: Stats;
  try {
    s = lstatSync(file);
  } catch {
    return null;
  }
  if (s.isSymbolicLink()) {
    return { file, line: 1, message: 'a symbolic link, not a record: git stores the link, and holon\'s next write replaces it with a file', fix: 'replace the link with a copy of the file it points to' };
  }
  const what = kind(s);
  return what ? notRegular(file, what) : null;
}
