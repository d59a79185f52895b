import type { DashView } from './view-model.js';
import { Line } from './Line.js';

/** The top line: the home, the clock, and whether a watcher is up. */
export function Header({ view }: { view: Pick<DashView, 'home' | 'now' | 'watcher' | 'problems'> }) {
  const w = view.watcher;
  const watcher = w.up ? `watcher up (pid ${w.pid}${w.listen ? `, ingress ${w.listen}` : ''})` : 'no watcher: nothing runs until `holon watch`';
  return (
    <Line bold>
      holon dash  {view.now}  {watcher}
      {view.problems ? `  ${view.problems} unreadable record(s): holon check` : ''}  {view.home}
    </Line>
  );
}
