import type { Explanation, Frontier, FrontierEntry } from '../core/frontier.js';
import { bold, dim, green, out, red, table, truncate, yellow } from './output.js';

const LABELS: Array<[keyof Frontier & string, string]> = [
  ['runnable', 'runnable'],
  ['needs_decision', 'needs a decision (a person must decide)'],
  ['needs_action', "needs a person's action"],
  ['resume_candidates', 'resume candidates (review: continue, reopen, supersede or close)'],
  ['waiting', 'waiting'],
  ['not_runnable', 'not runnable'],
];

function rows(list: FrontierEntry[], withCode: boolean): string {
  return table(list.map((e) => [
    '  ' + e.id,
    e.priority ?? '-',
    ...(withCode ? [e.code] : []),
    // A runnable entry with another code is flagged (stale, unproven): say so, not only in the detail.
    truncate(e.title, 50) + (!withCode && e.code !== 'runnable' ? '  ' + yellow(e.code) : '') + dim(`  ${e.detail}`),
  ]));
}

/** The human view of the frontier: channels in the order a person acts on them. */
export function renderFrontier(f: Frontier): void {
  out(dim(`frontier of ${f.agent} (${f.holder}) at ${f.now}`));
  for (const [key, label] of LABELS) {
    const list = f[key] as FrontierEntry[];
    const n = f.counts[key as keyof Frontier['counts']] as number;
    if (!n && key !== 'runnable') continue;
    const head = `${label} (${n})`;
    out('');
    out(key === 'runnable' ? (n ? green(bold(head)) : bold(head)) : key === 'needs_decision' ? yellow(bold(head)) : bold(head));
    if (key === 'needs_decision') {
      for (const d of f.needs_decision) {
        out(`  ${d.id}  ${d.priority ?? '-'}  ${truncate(d.title, 50)}  ${dim(`scope ${d.scope ?? '?'}${d.blocks.length ? `, blocks ${d.blocks.join(', ')}` : ''}`)}`);
      }
      out(dim(`  decide with: holon decide ID --approve|--reject [--note "..."]`));
      continue;
    }
    if (list.length) out(rows(list, key !== 'runnable'));
    else if (key === 'runnable') out(dim(f.counts.total === f.counts.closed ? '  no open WorkItems: holon new "what must be delivered"' : '  nothing runnable now; the sections below say why'));
    const more = f.truncated[key as keyof Frontier['truncated']];
    if (more) out(dim(`  ... and ${more} more (--limit N, --all)`));
  }
  out('');
  const c = f.counts;
  out(dim(`counts: runnable ${c.runnable} · needs_decision ${c.needs_decision} · needs_action ${c.needs_action} · waiting ${c.waiting} · resume_candidates ${c.resume_candidates} · not_runnable ${c.not_runnable} · closed ${c.closed}`));
  if (f.runnable[0]) out(dim(`next: holon pick   (claims ${f.runnable[0].id})`));
}

export function renderExplanation(e: Explanation, title: string): void {
  out(`${bold(e.id)}  ${title}`);
  const verdict = e.runnable ? (e.code === 'runnable' ? green('runnable') : `${green('runnable')}, flagged ${yellow(e.code)}: recheck before building on it`) : `${e.channel.replace('_', ' ')}: ${red(e.code)}`;
  out(`for agent ${e.agent} (${e.holder}): ${verdict}`);
  // A passed check with a code other than ok is a flag (freshness): the item stays runnable.
  out(table(e.checks.map((c) => [c.pass ? (c.code === 'ok' ? green('  pass') : yellow('  FLAG')) : red('  FAIL'), c.check, c.pass && c.code === 'ok' ? dim('ok') : c.code, c.detail])));
}
