/**
 * Numbers read from a cache file as views of the buffer it was read into, not copies: each 4 KB of
 * fresh memory costs a page fault, some microseconds apiece on a virtual machine, and at 10,000 files
 * a snapshot's numbers are 560 KB, an answer's entry index 200 KB.
 */

/**
 * `length` numbers from byte `at` of `buf`: a view of its memory where that is aligned for them (the
 * writers align them in their files, and readFileSync's buffer is 8-aligned: its own memory, or a
 * slice of node's pool, which aligns each slice to 8), else a copy.
 * The caller may change them in place (the snapshot's are patched: graph-index.ts): the buffer must
 * be its alone.
 */
export function alignedView<T extends Float64Array | Uint32Array | Uint16Array>(Kind: { new (b: ArrayBuffer, o: number, n: number): T; new (n: number): T; BYTES_PER_ELEMENT: number }, buf: Buffer, at: number, length: number): T {
  const from = buf.byteOffset + at;
  if (from % Kind.BYTES_PER_ELEMENT === 0) return new Kind(buf.buffer as ArrayBuffer, from, length);
  const out = new Kind(length);
  new Uint8Array(out.buffer).set(buf.subarray(at, at + length * Kind.BYTES_PER_ELEMENT));
  return out;
}

/**
 * A line of text (JSON) ending in spaces and a newline, so that what follows it starts at a multiple
 * of 8 bytes into its file, `before` being the bytes before the line (JSON.parse skips the spaces).
 */
export function alignedLine(text: string, before: number): Buffer {
  const line = Buffer.from(text);
  const pad = (8 - ((before + line.length + 1) % 8)) % 8;
  return Buffer.concat([line, Buffer.from(`${' '.repeat(pad)}\n`)]);
}
