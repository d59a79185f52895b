/**
 * The columns of strings of the entries a cached answer left out (frontier-cut.ts): their order keys
 * and their codes, kept as bytes and read one entry at a time. At 50,000 items some 10,000 entries
 * are left out, and a patch that changes a few of them read and wrote them all: as a JSON line that
 * cost some 5 ms (its parse and stringify), where these are copied by ranges, natively, and an entry
 * is decoded only when a patch looks at it (a binary search, the few entries it moves).
 */

/** A byte no UTF-8 text holds: the padding after a string shorter than its slot. */
const PAD = 0xff;

/**
 * Slots are a multiple of 16 bytes, at most this wide: an order key is a few dozen bytes, and a file
 * that says more is not taken (a width read from a damaged file would size what a patch allocates).
 */
export const MAX_WIDTH = 4096;
export const widthOk = (w: unknown): w is number => Number.isInteger(w) && (w as number) >= 16 && (w as number) <= MAX_WIDTH && (w as number) % 16 === 0;

/**
 * Strings in slots of one width (bytes, UTF-8, padded): entry n at n * width, so that neither a read
 * nor a range needs the lengths of the entries before it (a running sum over 10,000 lengths cost a
 * millisecond with V8's optimizer off).
 */
export class FixedStrings {
  constructor(
    readonly blob: Buffer,
    readonly width: number,
  ) {}

  get length(): number {
    return this.blob.length / this.width;
  }

  at(n: number): string | undefined {
    if (!(n >= 0 && n < this.length)) return undefined;
    const s = n * this.width;
    const slot = this.blob.subarray(s, s + this.width);
    const end = slot.indexOf(PAD);
    return slot.toString('utf8', 0, end < 0 ? this.width : end);
  }

  slice(a: number, b: number): FixedStrings {
    return new FixedStrings(this.blob.subarray(a * this.width, b * this.width), this.width);
  }

  toArray(): string[] {
    return Array.from({ length: this.length }, (_, n) => this.at(n)!);
  }

  /**
   * The strings in slots with room to spare (a new key a little longer than the others still fits);
   * null when one of them does not come back the same from UTF-8 (a lone surrogate), or is longer than
   * a slot may be.
   */
  static of(strings: readonly string[], width = 0): FixedStrings | null {
    const bytes = strings.map((s) => Buffer.from(s));
    const max = bytes.reduce((m, b) => Math.max(m, b.length), 0);
    const w = Math.max(width, Math.ceil((max + 8) / 16) * 16);
    if (!widthOk(w)) return null;
    const blob = Buffer.alloc(w * strings.length, PAD);
    for (let n = 0; n < bytes.length; n++) {
      if (bytes[n].toString('utf8') !== strings[n]) return null;
      bytes[n].copy(blob, n * w);
    }
    return new FixedStrings(blob, w);
  }

  /** The columns one after the other: copied as they are where they all have one width, else in the widest. */
  static concat(parts: readonly FixedStrings[]): FixedStrings {
    const width = parts.reduce((w, p) => (p.length ? Math.max(w, p.width) : w), 16);
    if (parts.every((p) => !p.length || p.width === width)) return new FixedStrings(Buffer.concat(parts.map((p) => p.blob)), width);
    // A new key longer than every slot: each entry moved to the wider slots (seldom, and once per width).
    const total = parts.reduce((n, p) => n + p.length, 0);
    const blob = Buffer.alloc(total * width, PAD);
    let at = 0;
    for (const p of parts) {
      for (let n = 0; n < p.length; n++, at++) p.blob.copy(blob, at * width, n * p.width, (n + 1) * p.width);
    }
    return new FixedStrings(blob, width);
  }
}

/** Codes (the frontier's reason codes: a handful of distinct strings) as a list and one number per entry. */
export class CodeColumn {
  constructor(
    readonly list: readonly string[],
    readonly idx: Uint16Array,
  ) {}

  get length(): number {
    return this.idx.length;
  }

  at(n: number): string | undefined {
    return n >= 0 && n < this.idx.length ? this.list[this.idx[n]] : undefined;
  }

  slice(a: number, b: number): CodeColumn {
    return new CodeColumn(this.list, this.idx.subarray(a, b));
  }

  toArray(): string[] {
    return Array.from(this.idx, (i) => this.list[i]);
  }

  static of(codes: readonly string[]): CodeColumn {
    const list: string[] = [];
    const seen = new Map<string, number>();
    const idx = new Uint16Array(codes.length);
    codes.forEach((c, n) => {
      let i = seen.get(c);
      if (i === undefined) seen.set(c, (i = list.push(c) - 1));
      idx[n] = i;
    });
    return new CodeColumn(list, idx);
  }

  /**
   * The columns one after the other, under one list that starts with `base`: a column whose list
   * starts that one (the cut a patch copies ranges of) is copied as it is.
   */
  static concat(parts: readonly CodeColumn[], base: readonly string[] = []): CodeColumn {
    const list: string[] = [];
    const seen = new Map<string, number>();
    const add = (c: string) => seen.get(c) ?? (seen.set(c, list.length), list.push(c) - 1);
    base.forEach(add);
    const idx = new Uint16Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      const map = p.list.map(add);
      if (map.every((i, k) => i === k)) idx.set(p.idx, at);
      else for (let n = 0; n < p.length; n++) idx[at + n] = map[p.idx[n]];
      at += p.length;
    }
    return new CodeColumn(list, idx);
  }
}
