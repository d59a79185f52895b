/**
 * The text of `JSON.stringify(value, null, 2)`, the same to the byte, in parts of about `chunk`
 * characters each: an object or array at the top two levels is written one member at a time. The
 * frontier of a large home is some 7 MB of JSON; built whole, that string and its UTF-8 copy live
 * side by side at the end of the command, which sets its peak memory.
 */
export function* jsonParts(value: unknown, chunk = 1 << 16): Generator<string> {
  let buf: string[] = [];
  let size = 0;
  for (const s of members(value, '', 2, chunk)) {
    if (size + s.length > chunk && buf.length) {
      yield buf.join('');
      buf = [];
      size = 0;
    }
    buf.push(s);
    size += s.length;
  }
  if (buf.length) yield buf.join('');
}

/** `value` as its members' texts, `depth` more levels deep; `pad` is the indentation it starts at. */
function* members(value: unknown, pad: string, depth: number, chunk: number): Generator<string> {
  const v = value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON: () => unknown }).toJSON() : value;
  if (depth === 0 || v === null || typeof v !== 'object') {
    yield indented(JSON.stringify(v, null, 2), pad);
    return;
  }
  const inner = pad + '  ';
  if (Array.isArray(v)) {
    if (!v.length) return void (yield '[]');
    yield '[\n';
    if (depth === 1) {
      // Leaves, a batch at a time through one native JSON.stringify: `[\n  A,\n  B\n]` holds the
      // members at two spaces, the same text they have here once every line gets this pad (the
      // frontier's channels are thousands of entries, and one call each cost more than the rest).
      // The batch grows to about half a part, from what the last one's members took.
      for (let i = 0, n = 8; i < v.length; ) {
        const text = membersAt(v.slice(i, i + n), pad);
        yield text;
        const per = text.length / Math.min(n, v.length - i);
        i += n;
        yield i < v.length ? ',\n' : '\n';
        n = Math.max(1, Math.floor(chunk / (2 * per)));
      }
      yield `${pad}]`;
      return;
    }
    for (let i = 0; i < v.length; i++) {
      yield inner;
      const el = v[i];
      // An array keeps a place for what JSON has no text for (undefined, a function): null.
      if (el === undefined || typeof el === 'function' || typeof el === 'symbol') yield 'null';
      else yield* members(el, inner, depth - 1, chunk);
      yield i < v.length - 1 ? ',\n' : '\n';
    }
    yield `${pad}]`;
    return;
  }
  // An object leaves those out.
  const keys = Object.keys(v).filter((k) => {
    const x = (v as Record<string, unknown>)[k];
    return x !== undefined && typeof x !== 'function' && typeof x !== 'symbol';
  });
  if (!keys.length) return void (yield '{}');
  yield '{\n';
  for (let i = 0; i < keys.length; i++) {
    yield `${inner}${JSON.stringify(keys[i])}: `;
    yield* members((v as Record<string, unknown>)[keys[i]], inner, depth - 1, chunk);
    yield i < keys.length - 1 ? ',\n' : '\n';
  }
  yield `${pad}}`;
}

/**
 * The members of a non-empty array as `JSON.stringify(items, null, 2)` writes them, every line moved to
 * `pad`: the array is stringified inside one outer array per level of `pad` (two spaces), so that
 * JSON.stringify indents it there itself; a regex over the text (megabytes at 10,000 entries) cost a
 * tenth of a full frontier's output. Each level of `L` spaces adds `L + 2` bytes before and after.
 */
function membersAt(items: unknown[], pad: string): string {
  const levels = pad.length / 2;
  if (!Number.isInteger(levels) || pad.trim() !== '') {
    const text = JSON.stringify(items, null, 2);
    return pad + indented(text.slice(2, -2), pad);
  }
  let wrapped: unknown = items;
  for (let k = 0; k < levels; k++) wrapped = [wrapped];
  const cut = (levels + 1) * (levels + 2);
  const text = JSON.stringify(wrapped, null, 2);
  return text.slice(cut, -cut);
}

/** JSON text of a nested value, re-indented to start at `pad` (JSON strings hold no raw newline). */
export const indented = (text: string, pad: string) => (pad && text.includes('\n') ? text.replace(/\n/g, `\n${pad}`) : text);
