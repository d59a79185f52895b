import { HolonError } from '../core/errors.js';

/** File-system refusals no retry can fix: they are expected input (exit 3), not bugs. */
const CAUSES: Record<string, { cause: string; hint: string }> = {
  EROFS: { cause: 'the file system is read-only', hint: 'run holon where the home is writable (records, and local/ for locks and temp files); read commands still work' },
  EACCES: { cause: 'permission denied', hint: 'give this user write access to the home and its local/ folder; read commands still work' },
  EPERM: { cause: 'operation not permitted', hint: 'give this user write access to the home and its local/ folder; read commands still work' },
  ENOSPC: { cause: 'no space left on the device', hint: 'free space on the disk that holds the home, then retry: the records are unchanged' },
  EDQUOT: { cause: 'disk quota exceeded', hint: 'free space or raise the quota on the disk that holds the home, then retry: the records are unchanged' },
};

/** The code of a refusal no retry can fix, or null. */
export function refusalCode(err: unknown): string | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code && code in CAUSES ? code : null;
}

/**
 * The user-facing error for a file-system refusal: what holon tried on which path, and the cause.
 * Null when `err` is something else (the caller rethrows it as it is).
 */
export function fsRefusal(err: unknown, path?: string, action = 'write'): HolonError | null {
  if (err instanceof HolonError) return null;
  const code = refusalCode(err);
  if (!code) return null;
  const where = path ?? (err as NodeJS.ErrnoException).path ?? 'the home';
  const { cause, hint } = CAUSES[code];
  return new HolonError('invalid', `cannot ${action} ${where}: ${cause} (${code})`, { hint, where });
}

/** Rethrows `err`, turned into a clear HolonError when it is a file-system refusal. */
export function rethrowFs(err: unknown, path?: string, action?: string): never {
  throw fsRefusal(err, path, action) ?? err;
}
