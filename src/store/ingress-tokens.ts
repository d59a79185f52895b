import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { formatId } from '../core/ids.js';
import { iso } from '../core/time.js';
import { writeFileAtomic } from './atomic-write.js';
import type { Home } from './home.js';
import { withLock } from './lock.js';

/**
 * Capability tokens for HTTP ingress. A token is 32 random bytes (base64url) and is shown once, when
 * it is created or rotated; only its SHA-256 is stored, in local/secrets/ingress.json (mode 0600).
 */
export interface StoredToken {
  id: string;
  agent: string;
  sha256: string;
  created_at: string;
}

interface TokenFile {
  tokens: StoredToken[];
}

const secretsDir = (home: Home) => join(home.local, 'secrets');
const tokenFile = (home: Home) => join(secretsDir(home), 'ingress.json');

const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest();

export function readTokens(home: Home): StoredToken[] {
  try {
    const f = JSON.parse(readFileSync(tokenFile(home), 'utf8')) as Partial<TokenFile>;
    return Array.isArray(f.tokens) ? f.tokens : [];
  } catch {
    return [];
  }
}

function writeTokens(home: Home, tokens: StoredToken[]): void {
  mkdirSync(secretsDir(home), { recursive: true, mode: 0o700 });
  const file = tokenFile(home);
  writeFileAtomic(file, JSON.stringify({ tokens }, null, 2) + '\n', join(home.local, 'tmp'));
  chmodSync(file, 0o600);
}

const update = <T>(home: Home, fn: (tokens: StoredToken[]) => { tokens: StoredToken[]; result: T }) =>
  withLock(home.local, 'ingress-tokens', () => {
    const { tokens, result } = fn(readTokens(home));
    writeTokens(home, tokens);
    return result;
  });

/** Creates a token for `agent`, replacing (so invalidating) any it had. Returns the secret, shown once. */
export function issueToken(home: Home, agent: string, nowMs: number): Promise<{ token: string; stored: StoredToken; replaced: string[] }> {
  return update(home, (tokens) => {
    const token = randomBytes(32).toString('base64url');
    const stored: StoredToken = { id: formatId('ig', randomBytes(8)), agent, sha256: hashOf(token).toString('hex'), created_at: iso(nowMs) };
    const replaced = tokens.filter((t) => t.agent === agent).map((t) => t.id);
    return { tokens: [...tokens.filter((t) => t.agent !== agent), stored], result: { token, stored, replaced } };
  });
}

/** Removes every token of `agent`; returns the ids removed. */
export function revokeTokens(home: Home, agent: string): Promise<string[]> {
  return update(home, (tokens) => ({
    tokens: tokens.filter((t) => t.agent !== agent),
    result: tokens.filter((t) => t.agent === agent).map((t) => t.id),
  }));
}

/**
 * The stored token a presented secret matches, or null. Compares SHA-256 digests with
 * timingSafeEqual against every stored token, so timing says nothing about which or how much matched.
 */
export function matchToken(tokens: StoredToken[], presented: string): StoredToken | null {
  const h = hashOf(presented);
  let found: StoredToken | null = null;
  for (const t of tokens) {
    const stored = Buffer.from(t.sha256, 'hex');
    if (stored.length === h.length && timingSafeEqual(stored, h) && !found) found = t;
  }
  return found;
}
