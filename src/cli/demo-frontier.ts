import type { DemoShell } from './demo-script.js';

/**
 * The frontier part of the demo (seed 002): a P0 API change gated on a person's decision, an
 * independent P1 test that may run now, the explanation of why the P0 may not, and the decision.
 */
export function demoFrontier(sh: DemoShell): void {
  sh.say('Open is not runnable: a P0 API change needs a decision, a P1 test does not.');
  const gate = sh.holon(['new', 'May the export API change its response shape?', '--class', 'user_gate', '--decision-scope', 'api_change:action:export', '--priority', 'P0']);
  const api = sh.holon(['new', 'Change the export API response shape', '--priority', 'P0', '--needs-decision', 'api_change:action:export']);
  sh.holon(['new', 'Characterization test of the export endpoint', '--priority', 'P1', '--requires', 'shell']);
  sh.holon(['capabilities', '--refresh']);
  sh.holon(['frontier']);

  sh.say('Why not the P0? The same checks, in order:');
  sh.holon(['explain', api]);

  sh.say('A person approves the decision; the P0 is runnable now, and pick claims it in one step.');
  sh.holon(['decide', gate, '--approve', '--note', 'clients were told in the changelog'], { env: { HOLON_ACTOR: 'operator' } });
  sh.holon(['pick', '--ttl', '45m']);
  sh.holon(['explain', api]);
}
