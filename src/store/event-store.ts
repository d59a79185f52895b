import { existsSync, mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { formatId } from '../core/ids.js';
import { parseYamlRecord, RecordParseError } from '../core/record-codec.js';
import { EVENT_MODES, EVENT_SOURCES, eventOrder, type HolonEvent } from '../core/types.js';
import { writeFileAtomic } from './atomic-write.js';
import { inboxDir, serializeEvent } from './events.js';
import { agentDir, type Home } from './home.js';
import { problemError } from './work-store.js';
import { readRecordText } from './record-file.js';

/** Admitted events: agents/A/events/ID.yaml (moved there from inbox/ with their disposition). */
export const eventsDir = (home: Home, agent: string) => join(agentDir(home, agent), 'events');

/** A deterministic event id for one occurrence (a timer slot, a task's end): a rerun finds it again. */
export function occurrenceEventId(occurrence: string): string {
  return formatId('e', createHash('sha256').update(occurrence).digest());
}

export function eventFromData(d: Record<string, unknown>): HolonEvent {
  const str = (v: unknown) => (v == null ? null : String(v));
  return {
    id: String(d.id),
    agent: String(d.agent ?? ''),
    source: d.source as HolonEvent['source'],
    mode: d.mode as HolonEvent['mode'],
    resource: String(d.resource ?? ''),
    work_item: str(d.work_item),
    payload: str(d.payload),
    provenance: String(d.provenance ?? ''),
    created_at: String(d.created_at ?? ''),
    ...(Number.isSafeInteger(d.queued_us) ? { queued_us: d.queued_us as number } : {}),
    status: d.status === 'admitted' ? 'admitted' : 'queued',
    admitted_at: str(d.admitted_at),
    disposition: (d.disposition as HolonEvent['disposition']) ?? null,
  };
}

/** Problems of one event record, for `holon check`. */
export function checkEventData(d: Record<string, unknown>, file: string, id: string) {
  const problems = [];
  if (d.id !== id) problems.push({ file, line: 1, message: `id "${String(d.id)}" does not match the file name`, fix: `set id: "${id}"` });
  if (!EVENT_SOURCES.includes(d.source as never)) problems.push({ file, line: 1, message: `unknown source "${String(d.source)}"`, fix: `source is one of ${EVENT_SOURCES.join(', ')}` });
  if (!EVENT_MODES.includes(d.mode as never)) problems.push({ file, line: 1, message: `unknown mode "${String(d.mode)}"`, fix: `mode is one of ${EVENT_MODES.join(', ')}` });
  return problems;
}

export function readEventFile(file: string): HolonEvent {
  try {
    return eventFromData(parseYamlRecord(readRecordText(file), file, 'id: "e-4f2a9c1k"').data);
  } catch (err) {
    if (err instanceof RecordParseError) throw problemError(err.problem);
    throw err;
  }
}

function yamlIds(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -5)).sort();
  } catch {
    return [];
  }
}

export const inboxFile = (home: Home, agent: string, id: string) => join(inboxDir(home, agent), `${id}.yaml`);
export const admittedFile = (home: Home, agent: string, id: string) => join(eventsDir(home, agent), `${id}.yaml`);

function readEventsIn(dir: string): HolonEvent[] {
  const out: HolonEvent[] = [];
  for (const id of yamlIds(dir)) {
    try {
      out.push(readEventFile(join(dir, `${id}.yaml`)));
    } catch {
      // A hand-broken record stays where it is; `holon check` names it.
    }
  }
  return out.sort(eventOrder);
}

/** Per inbox folder: each queued file's order (created_at, queued_us), read once per process (queued records never change). */
type QueuedKey = { created_at: string; queued_us?: number; id: string };
const queuedAt = new Map<string, Map<string, QueuedKey>>();
const CREATED_AT = /^created_at: "([^"\n]*)"/m;
const QUEUED_US = /^queued_us: (\d+)$/m;

/**
 * Ids of an agent's queued events, oldest first (created_at, then id), without keeping their records:
 * a backlog of any size costs one listing of the folder and one small read per new file, so admission
 * stays at the same rate and in bounded memory however many events wait.
 */
export function queuedIds(home: Home, agent: string): string[] {
  const dir = inboxDir(home, agent);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    queuedAt.delete(dir);
    return [];
  }
  const known = queuedAt.get(dir) ?? new Map<string, QueuedKey>();
  const next = new Map<string, QueuedKey>();
  for (const name of names) {
    if (!name.endsWith('.yaml')) continue;
    let key = known.get(name);
    if (key === undefined) {
      try {
        const text = readRecordText(join(dir, name));
        const us = QUEUED_US.exec(text)?.[1];
        key = { created_at: CREATED_AT.exec(text)?.[1] ?? '', id: name.slice(0, -5), ...(us ? { queued_us: Number(us) } : {}) };
      } catch {
        continue; // gone, or not a regular file: `holon check` names it
      }
    }
    next.set(name, key);
  }
  queuedAt.set(dir, next);
  return [...next.values()].sort(eventOrder).map((k) => k.id);
}

/** Whether an agent has a queued event, without reading any. */
export function hasQueued(home: Home, agent: string): boolean {
  try {
    return readdirSync(inboxDir(home, agent)).some((f) => f.endsWith('.yaml'));
  } catch {
    return false;
  }
}

/** Queued events of an agent, oldest first; unreadable files are skipped. */
export const listInbox = (home: Home, agent: string) => readEventsIn(inboxDir(home, agent));

/** Admitted events of an agent, oldest first. */
export const listAdmitted = (home: Home, agent: string) => readEventsIn(eventsDir(home, agent));

/** An event queued or admitted under this id, if any. */
export function eventExists(home: Home, agent: string, id: string): boolean {
  return existsSync(inboxFile(home, agent, id)) || existsSync(admittedFile(home, agent, id));
}

/** The admitted record of an event, or null. */
export function readAdmitted(home: Home, agent: string, id: string): HolonEvent | null {
  try {
    return readEventFile(admittedFile(home, agent, id));
  } catch {
    return null;
  }
}

/** Moves an event from inbox/ to events/ with its disposition: write the new record first, then unlink. */
export function storeAdmitted(home: Home, ev: HolonEvent): void {
  mkdirSync(eventsDir(home, ev.agent), { recursive: true });
  writeFileAtomic(admittedFile(home, ev.agent, ev.id), serializeEvent(ev), join(home.local, 'tmp'));
  try {
    unlinkSync(inboxFile(home, ev.agent, ev.id));
  } catch {
    // Already gone: another admission finished first.
  }
}

/**
 * Admitted operator events written since `sinceMs` (by file time, with a little slack), without
 * parsing the agent's whole event history: resume calls this on every prompt.
 */
export const recentOperatorEvents = (home: Home, agent: string, sinceMs: number): HolonEvent[] => recentEvents(home, agent, sinceMs, (text) => text.includes('source: "operator"'));

/** An agent's event records written since `sinceMs` (by file time, as above) whose text passes `only`. */
export function recentEvents(home: Home, agent: string, sinceMs: number, only: (text: string) => boolean = () => true): HolonEvent[] {
  const dir = eventsDir(home, agent);
  const out: HolonEvent[] = [];
  // A clock set ahead (HOLON_NOW) says nothing about file times: then every file is looked at.
  const floor = sinceMs > Date.now() ? 0 : sinceMs - 5000;
  for (const id of yamlIds(dir)) {
    const file = join(dir, `${id}.yaml`);
    try {
      if (statSync(file).mtimeMs < floor) continue;
      if (!only(readRecordText(file))) continue;
      out.push(readEventFile(file));
    } catch {
      // gone or broken: `holon check` reports broken records
    }
  }
  return out.sort((a, b) => (a.admitted_at ?? '').localeCompare(b.admitted_at ?? '') || eventOrder(a, b));
}
