import * as z from 'zod';
import { HolonError } from '../core/errors.js';
import { renderNoHome, renderPrime } from '../core/prime.js';
import { renderResume } from '../core/resume.js';
import type { WorkRef } from '../store/work-store.js';
import { claim, release } from '../ops/claim.js';
import type { OpsCtx } from '../ops/context.js';
import { frontier } from '../ops/frontier.js';
import { block, complete, defer } from '../ops/lifecycle.js';
import { newItem } from '../ops/new.js';
import { pick, pickNext } from '../ops/pick.js';
import { prime } from '../ops/prime.js';
import { evidence, onReturn, progress } from '../ops/record.js';
import { resume } from '../ops/resume.js';
import { show } from '../ops/show.js';
import { resolveItem } from '../ops/target.js';
import { locateWait, settleWait, wait } from '../ops/wait.js';

/** One MCP tool: its input shape (JSON Schema via zod) and the op it calls. */
export interface ToolDef {
  name: string;
  description: string;
  input: z.ZodRawShape;
  readOnly?: boolean;
  run: (ctx: OpsCtx, args: any) => Promise<unknown> | unknown;
}

const id = z.string().min(1).optional().describe('WorkItem id or unique prefix (w-4f2a9c1k); default: your focus');
const text = (what: string) => z.string().min(1).describe(what);
const list = (what: string) => z.array(z.string().min(1)).optional().describe(what);
const item = (ctx: OpsCtx, a: { id?: string }): WorkRef => resolveItem(ctx, a.id);

/** Text an agent reads as it is (prime, resume); everything else is the CLI's --json data. */
export class Rendered {
  constructor(readonly text: string) {}
}

export const TOOLS: ToolDef[] = [
  {
    name: 'prime', readOnly: true,
    description: 'Your role, your focus with its resume context (or a short frontier), and the loop. Start here.',
    input: {},
    run: async (ctx) => {
      const r = await prime(ctx);
      return new Rendered(r.home ? renderPrime(r) : renderNoHome(r.message));
    },
  },
  {
    name: 'frontier', readOnly: true,
    description: 'What you may work on now (runnable, needs_decision, waiting, resume_candidates, not_runnable with reason codes).',
    input: {
      limit: z.number().int().min(1).optional().describe('cap each channel (counts are computed before the cap)'),
      all: z.boolean().optional().describe('list every not_runnable entry (default: the first 50, the rest counted in truncated.not_runnable)'),
    },
    run: (ctx, a) => frontier(ctx, { limit: a.limit, all: a.all }),
  },
  {
    name: 'pick',
    description: 'Set your focus to an item; with no id, claim the top runnable item and focus it.',
    input: { id: z.string().min(1).optional().describe('WorkItem id; omit to claim the top runnable item'), ttl: z.string().optional().describe('lease length when claiming the top item, e.g. 45m') },
    run: async (ctx, a) => {
      if (!a.id) return pickNext(ctx, { ttl: a.ttl });
      if (a.ttl) throw new HolonError('usage', 'ttl applies only to pick without an id (which claims)', { hint: `to lease this item, call claim with id ${a.id} and ttl ${a.ttl}` });
      const r = await pick(ctx, item(ctx, a));
      return { agent: r.agent, focus: r.focus.work_item, since: r.focus.since, item: r.item };
    },
  },
  {
    name: 'show', readOnly: true,
    description: 'One item as data (waits, blocker, claim, progress, evidence); reading never changes it.',
    input: { id },
    run: (ctx, a) => {
      const r = show(ctx, item(ctx, a));
      return { ...r.item, focus: r.focus, file: r.file };
    },
  },
  {
    name: 'resume', readOnly: true,
    description: 'What you need to continue an item, from its record: objective, progress, evidence to recheck, waits and what woke you, on-return note.',
    input: { id },
    run: (ctx, a) => new Rendered(renderResume(resume(ctx, item(ctx, a)))),
  },
  {
    name: 'new',
    description: 'Create a WorkItem for yourself (say what must be delivered); pick: true makes it your focus.',
    input: {
      objective: text('what must be delivered'), title: z.string().optional(), priority: z.enum(['P0', 'P1', 'P2', 'P3', 'P4']).optional(),
      depends_on: list('ids this item depends on'), accept: list('acceptance criteria'), pick: z.boolean().optional().describe('make it your focus'),
    },
    run: async (ctx, a) => {
      const r = await newItem(ctx, { objective: a.objective, title: a.title, priority: a.priority, dependsOn: a.depends_on, accept: a.accept, pick: a.pick });
      return { id: r.doc.item.id, title: r.doc.item.title, agent: r.agent, focus: r.focus, file: r.ref.file };
    },
  },
  {
    name: 'progress',
    description: 'Record what you did and found (and optionally where to resume).',
    input: { id, text: text('what you did and found'), on_return: z.string().optional().describe('replace the On return note') },
    run: async (ctx, a) => summary(await progress(ctx, item(ctx, a), { text: a.text, onReturn: a.on_return })),
  },
  {
    name: 'evidence',
    description: 'Record proof, with the commit or run it was observed on (evidence on an old commit must be rechecked).',
    input: { id, text: text('what it proves'), commit: z.string().optional().describe('commit sha it was observed on'), run: z.string().optional().describe('run id, e.g. ci/7731') },
    run: async (ctx, a) => summary(await evidence(ctx, item(ctx, a), { text: a.text, commit: a.commit, run: a.run })),
  },
  {
    name: 'on_return',
    description: 'Set the On return note: where the work should resume next time.',
    input: { id, text: text('where to pick up next time') },
    run: async (ctx, a) => summary(await onReturn(ctx, item(ctx, a), { text: a.text })),
  },
  {
    name: 'wait',
    description: 'Register what the item waits for (starts nothing). for: external:RESOURCE, task:HANDLE, timer:ID, timer (with in/at), thread:ID or operator.',
    input: {
      id, for: text('external:github:acme/app#101, task:k-4f2a9c, timer:t-8m2k1q, timer (with in or at), or operator'),
      reason: text('why the item waits'), in: z.string().optional().describe('with for: timer, e.g. 2h'), at: z.string().optional().describe('with for: timer, an ISO time'),
      recheck: z.string().optional().describe('fallback deadline: a duration (6h) or ISO time'),
    },
    run: async (ctx, a) => {
      const r = await wait(ctx, item(ctx, a), { for: a.for, reason: a.reason, in: a.in, at: a.at, recheck: a.recheck });
      if (!r.registered) {
        if ('result' in r) return { registered: false, work_item: r.work_item, result: r.result };
        if ('thread_result' in r) return { registered: false, work_item: r.work_item, result: r.thread_result };
        if ('travelled' in r) return { registered: false, work_item: r.work_item, result: r.travelled };
        return { registered: false, work_item: r.work_item, timer: r.timer };
      }
      return { registered: true, work_item: r.work_item, wait: r.wait, timer: r.timer, notes: r.notes };
    },
  },
  {
    name: 'settle_wait',
    description: 'Cancel an active wait, or resolve a triggered one once you handled its wake.',
    input: { wait_id: text('the wait id (wt-...)'), how: z.enum(['cancel', 'resolve']), id: z.string().optional().describe('the item holding it (found when omitted)') },
    run: async (ctx, a) => settleWait(ctx, locateWait(ctx, a.wait_id, a.id ? () => resolveItem(ctx, a.id) : null), { waitId: a.wait_id, how: a.how }),
  },
  {
    name: 'complete',
    description: 'Complete with a result and evidence; needs successor ids or a no_followup reason. Outstanding work without a successor is refused.',
    input: {
      id, result: text('what was delivered'), evidence: list('what proves the objective was met'), outstanding: list('matters left open'),
      successor: list('ids of items that carry on the work'), no_followup: z.string().optional().describe('why nothing follows'),
    },
    run: async (ctx, a) => transition(await complete(ctx, item(ctx, a), { result: a.result, evidence: a.evidence, outstanding: a.outstanding, successor: a.successor, followup: a.no_followup })),
  },
  {
    name: 'defer',
    description: 'Set an item aside until a condition: until (ISO time) and/or when (done:ID, at:ISO, event:RESOURCE, capability:NAME).',
    input: { id, reason: text('why it is set aside'), until: z.string().optional(), when: list('resume conditions') },
    run: async (ctx, a) => transition(await defer(ctx, item(ctx, a), { reason: a.reason, until: a.until, when: a.when })),
  },
  {
    name: 'block',
    description: 'Block an item on a business obstacle, with the path that recovers from it.',
    input: { id, reason: text('what stops it'), recovery: text('what would unblock it') },
    run: async (ctx, a) => transition(await block(ctx, item(ctx, a), { reason: a.reason, recovery: a.recovery })),
  },
  {
    name: 'claim',
    description: 'Claim an item atomically (a lease with ttl); expected_version is a compare-and-swap.',
    input: { id, ttl: z.string().optional(), expected_version: z.number().int().min(0).optional(), key: z.string().optional().describe('idempotency key') },
    run: async (ctx, a) => {
      const r = await claim(ctx, item(ctx, a), { ttl: a.ttl, expectedVersion: a.expected_version, key: a.key });
      return { id: r.doc.item.id, outcome: r.outcome, claim: r.doc.item.claim, revision: r.doc.item.revision };
    },
  },
  {
    name: 'release',
    description: 'Release your claim on an item.',
    input: { id },
    run: async (ctx, a) => {
      const r = await release(ctx, item(ctx, a), {});
      return { id: r.doc.item.id, claim: r.doc.item.claim, released: true, revision: r.doc.item.revision };
    },
  },
];

const summary = (r: { item: { id: string; revision: number; status: string }; changed: boolean }) => ({ id: r.item.id, status: r.item.status, revision: r.item.revision, changed: r.changed });
const transition = (r: { item: { id: string; revision: number; status: string }; changed: boolean; timers_cancelled: string[] }) => ({ ...summary(r), timers_cancelled: r.timers_cancelled });
