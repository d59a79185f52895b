/**
 * Bytes given in parts, read as one text without joining them. A patched answer is a few new pieces
 * between slices of the old text (megabytes at 50,000 items), and Buffer.concat would copy all of it
 * into fresh memory, a page fault every 4 KB (store/aligned.ts), to read a few kilobytes of it.
 */
export class JoinedBytes {
  readonly length: number;
  private readonly parts: Buffer[];
  /** Where each part starts in the whole. */
  private readonly starts: number[];

  constructor(given: ReadonlyArray<string | Uint8Array>) {
    this.parts = [];
    this.starts = [];
    let at = 0;
    for (const p of given) {
      if (!p.length) continue;
      this.parts.push(typeof p === 'string' ? Buffer.from(p) : Buffer.isBuffer(p) ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength));
      this.starts.push(at);
      at += this.parts[this.parts.length - 1].length;
    }
    this.length = at;
  }

  /** The part that holds byte i (0 <= i < length). */
  private partAt(i: number): number {
    let lo = 0;
    let hi = this.parts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The byte at i, or -1 outside the text. */
  at(i: number): number {
    if (!(i >= 0 && i < this.length)) return -1;
    const k = this.partAt(i);
    return this.parts[k][i - this.starts[k]];
  }

  /** Bytes a to b (clamped, as Buffer.subarray): a view where one part holds them, else a copy of them alone. */
  slice(a: number, b = this.length): Buffer {
    a = Math.max(0, Math.min(a, this.length));
    b = Math.max(a, Math.min(b, this.length));
    if (a === b) return Buffer.alloc(0);
    const k = this.partAt(a);
    const end = this.starts[k] + this.parts[k].length;
    if (b <= end) return this.parts[k].subarray(a - this.starts[k], b - this.starts[k]);
    const pieces: Buffer[] = [];
    for (let j = k, p = a; p < b; j++) {
      const s = this.starts[j];
      const q = Math.min(b, s + this.parts[j].length);
      pieces.push(this.parts[j].subarray(p - s, q - s));
      p = q;
    }
    return Buffer.concat(pieces);
  }

  /** Whether the bytes at `at` are `what`'s. */
  startsWith(what: Buffer, at: number): boolean {
    if (!(at >= 0) || at + what.length > this.length) return false;
    const k = this.partAt(at);
    const local = at - this.starts[k];
    if (local + what.length <= this.parts[k].length) return this.parts[k].compare(what, 0, what.length, local, local + what.length) === 0;
    return this.slice(at, at + what.length).equals(what);
  }

  /** The first place at or after `from` where `what` is, or -1: searched part by part, and across each part's end. */
  indexOf(what: Buffer, from = 0): number {
    if (!what.length) return Math.min(Math.max(from, 0), this.length);
    if (from < 0) from = 0;
    if (from >= this.length) return -1;
    for (let k = this.partAt(from); k < this.parts.length; k++) {
      const s = this.starts[k];
      const found = this.parts[k].indexOf(what, Math.max(0, from - s));
      if (found >= 0) return s + found;
      // A match that starts in this part's last bytes and ends in the next ones.
      const end = s + this.parts[k].length;
      const a = Math.max(from, end - what.length + 1);
      if (end < this.length && a < end) {
        const across = this.slice(a, end + what.length - 1).indexOf(what);
        if (across >= 0 && a + across < end) return a + across;
      }
    }
    return -1;
  }

  /**
   * The last place at or before `from` where `what` is, or -1: searched part by part from there back,
   * and across each part's end. A channel's end is found from the end of the text (frontier-limit.ts),
   * not past every entry of a channel of thousands.
   */
  lastIndexOf(what: Buffer, from = this.length): number {
    from = Math.min(from, this.length - what.length);
    if (from < 0) return -1;
    if (!what.length) return from;
    for (let k = this.partAt(from); k >= 0; k--) {
      const s = this.starts[k];
      const end = s + this.parts[k].length;
      // A match that starts in this part's last bytes and ends in the next ones: later than any within it.
      const a = Math.max(s, end - what.length + 1);
      const b = Math.min(from, end - 1);
      if (end < this.length && a <= b) {
        const across = this.slice(a, b + what.length).lastIndexOf(what);
        if (across >= 0) return a + across;
      }
      const last = Math.min(from, end - what.length) - s;
      if (last >= 0) {
        const found = this.parts[k].lastIndexOf(what, last);
        if (found >= 0) return s + found;
      }
    }
    return -1;
  }
}
