/** The one table of exit codes; the README documents the same table. */
export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  invalid: 3,
  notFound: 4,
  conflict: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export type ErrorKind = keyof typeof EXIT;

/** A user-facing failure: what went wrong, where, and how to fix it. */
export class HolonError extends Error {
  readonly kind: ErrorKind;
  readonly hint?: string;
  readonly where?: string;
  readonly details?: unknown;

  constructor(kind: ErrorKind, message: string, opts: { hint?: string; where?: string; details?: unknown } = {}) {
    super(message);
    this.name = 'HolonError';
    this.kind = kind;
    this.hint = opts.hint;
    this.where = opts.where;
    this.details = opts.details;
  }

  get exitCode(): ExitCode {
    return EXIT[this.kind];
  }
}

export const invalid = (message: string, hint?: string, where?: string) =>
  new HolonError('invalid', message, { hint, where });
export const notFound = (message: string, hint?: string) => new HolonError('notFound', message, { hint });
export const conflict = (message: string, hint?: string, details?: unknown) =>
  new HolonError('conflict', message, { hint, details });
export const usage = (message: string, hint?: string) => new HolonError('usage', message, { hint });
